#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An APNs provider token (the signed JWT), sealed by the service, as every instance on one
/// store shares it: a cluster signs at most one token per (team, key) per refresh.
public struct SharedProviderToken: Sendable, Hashable {
    /// The token, sealed with the service's secret key (the store never sees it in clear).
    public var sealed: Data
    /// Its `iat` claim.
    public var issuedAt: Date

    /// Creates a value.
    public init(sealed: Data, issuedAt: Date) {
        self.sealed = sealed
        self.issuedAt = issuedAt
    }
}

/// Where the instances on one store keep the APNs provider token of each (team, key): what the
/// delivery engine needs of the store to share tokens (`StoredProviderTokens` in Delivery).
/// Both stores of PushStore have it, through `SharedStore`.
public protocol ProviderTokenStore: Sendable {
    /// Runs `update` with the stored provider token of (`teamId`, `keyId`) while holding a lock
    /// that every instance on this store honours (PostgreSQL: a transaction-scoped advisory
    /// lock; SQLite: a write transaction), stores what it returns when that is not nil, and
    /// returns the token in effect afterwards. `update` decides whether the stored token is
    /// still good (its age, whether APNs rejected it) and signs a new one when not.
    func withSharedProviderToken(
        teamId: String, keyId: String, _ update: (SharedProviderToken?) throws -> SharedProviderToken?
    ) throws -> SharedProviderToken?
}
