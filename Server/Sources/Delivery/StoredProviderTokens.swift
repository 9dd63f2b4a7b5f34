#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushCrypto
import ServerSupport

/// The service's ``ProviderTokenSharing``: the APNs provider token of each (team, key) lives
/// in the store, sealed with the service's secret key (it is a bearer credential: it never
/// reaches the database in clear), and is read and replaced under the store's cluster-wide
/// lock (``ProviderTokenStore/withSharedProviderToken(teamId:keyId:_:)``). Every instance on the
/// store must use the same secret key, as they must to read provider keys.
public struct StoredProviderTokens: ProviderTokenSharing {
    private let store: any ProviderTokenStore
    private let secrets: SecretBox
    private let logger: Logger

    /// Creates the sharing over `store`.
    /// - Parameter logger: told (warning) when the store fails or a stored token cannot be
    ///   opened; never the token.
    public init(store: any ProviderTokenStore, secrets: SecretBox, logger: Logger) {
        self.store = store
        self.secrets = secrets
        self.logger = logger
    }

    /// The authenticated context a token is sealed under: a sealed token cannot be moved to
    /// another key's row.
    static func context(teamId: String, keyId: String) -> String { "provider-token:\(teamId):\(keyId)" }

    public func withSharedToken(
        teamId: String, keyId: String, _ decide: (APNsTokenProvider.Token?) throws -> APNsTokenProvider.Token?
    ) throws -> APNsTokenProvider.Token? {
        let context = Self.context(teamId: teamId, keyId: keyId)
        var inEffect: APNsTokenProvider.Token?
        var deciding = false
        do {
            _ = try store.withSharedProviderToken(teamId: teamId, keyId: keyId) { stored in
                var opened: APNsTokenProvider.Token?
                if let stored {
                    do {
                        let value = String(decoding: try secrets.open(stored.sealed, context: context), as: UTF8.self)
                        opened = APNsTokenProvider.Token(value: value, issuedAt: stored.issuedAt)
                    } catch {
                        logger.warning(
                            "delivery: the shared provider token of \(teamId)/\(keyId) cannot be opened with this instance's "
                                + "secret key (do all instances use the same one?); signing a new one")
                    }
                }
                deciding = true
                let decision = try decide(opened)
                deciding = false
                guard let fresh = decision else {
                    inEffect = opened
                    return nil
                }
                inEffect = fresh
                return SharedProviderToken(
                    sealed: try secrets.seal(Data(fresh.value.utf8), context: context), issuedAt: fresh.issuedAt)
            }
        } catch {
            if deciding { throw error }  // signing failed: not the store's fault
            logger.warning(
                "delivery: the provider token of \(teamId)/\(keyId) cannot be shared through the store (\(error)); going on alone")
            throw error
        }
        return inEffect
    }
}
