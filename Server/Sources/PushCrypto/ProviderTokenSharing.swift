#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the instances of a cluster share the APNs provider token of each (team, key), so
/// that they sign one between them instead of one each (APNs answers
/// `TooManyProviderTokenUpdates` to a key whose token changes more than once in 20 minutes).
///
/// ``APNsTokenProvider`` consults it only when its own cached token is missing, due for
/// refresh or was rejected; every push in between uses the cached token without calling it.
/// The service implements it over its store, sealing the token (a bearer credential) before
/// it is stored.
public protocol ProviderTokenSharing: Sendable {
    /// Calls `decide` with the shared token of (`teamId`, `keyId`) (nil when there is none or
    /// it cannot be read) while holding a lock that every instance sharing it honours; stores
    /// what `decide` returns when that is not nil, and returns the token in effect afterwards
    /// (the one `decide` returned, or else the shared one it was given).
    ///
    /// Throws when the shared place cannot be reached; errors `decide` throws are rethrown.
    func withSharedToken(
        teamId: String, keyId: String, _ decide: (APNsTokenProvider.Token?) throws -> APNsTokenProvider.Token?
    ) throws -> APNsTokenProvider.Token?
}
