import APNs
import CurlHTTP
import FCM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushCrypto
import Synchronization

/// Caches provider credentials and the clients built from them: one APNs client (and so
/// one connection pool) per (environment, key id), one FCM client per service account.
final class ProviderClients: Sendable {
    struct CachedCredentials {
        let credentials: ProviderCredentials?
        let fetchedAt: Date
    }

    struct APNsEntry {
        let client: APNsClient
        let keyPEM: String
        let teamId: String
    }

    /// The token provider of one (team, key), shared by the key's clients of both environments.
    struct TokenEntry {
        let tokens: APNsTokenProvider
        let keyPEM: String
    }

    /// What the token providers of one (team, key) did, for `/metrics`.
    struct TokenCounts: Equatable {
        var signed = 0
        var adopted = 0
        var sharingFailures = 0

        mutating func add(_ tokens: APNsTokenProvider) {
            signed += tokens.tokensSigned
            adopted += tokens.tokensAdopted
            sharingFailures += tokens.sharingFailures
        }
    }

    struct FCMEntry {
        let client: FCMClient
        let keyPEM: String
        let tokenURI: String
    }

    private let directory: any ProviderDirectory
    private let configuration: DeliveryConfiguration
    private let builder: ProviderClientBuilder
    private let credentials = Mutex<[String: CachedCredentials]>([:])
    private let apns = Mutex<[String: APNsEntry]>([:])
    /// Token providers by team and key id; the counts of replaced ones (a key changed) are kept.
    private let tokenProviders = Mutex<(current: [String: TokenEntry], retired: [String: TokenCounts])>(([:], [:]))
    private let fcm = Mutex<[String: FCMEntry]>([:])
    private let fcmHTTP: HTTP2Client

    init(directory: any ProviderDirectory, configuration: DeliveryConfiguration) {
        self.directory = directory
        self.configuration = configuration
        builder = ProviderClientBuilder(configuration: configuration)
        fcmHTTP = builder.fcmHTTP(name: "fcm")
    }

    /// The credentials of a provider (cached for `providerCacheSeconds`).
    func credentials(appId: String, providerId: String, now: Date) throws -> ProviderCredentials? {
        let key = appId + "\u{0}" + providerId
        if let cached = credentials.withLock({ $0[key] }),
            now.timeIntervalSince(cached.fetchedAt) < configuration.providerCacheSeconds
        {
            return cached.credentials
        }
        let fresh = try directory.credentials(appId: appId, providerId: providerId)
        credentials.withLock { $0[key] = CachedCredentials(credentials: fresh, fetchedAt: now) }
        return fresh
    }

    /// Drops the cached credentials of a provider (it was updated): the next send reads them again.
    func forget(appId: String, providerId: String) {
        _ = credentials.withLock { $0.removeValue(forKey: appId + "\u{0}" + providerId) }
    }

    /// The APNs client for these credentials, created on first use.
    func apnsClient(for credentials: APNsCredentials) throws -> APNsClient {
        let environment = builder.apnsEnvironment(for: credentials)
        let key = environment.baseURL + "\u{0}" + credentials.keyId
        return try apns.withLock { clients in
            if let entry = clients[key], entry.keyPEM == credentials.privateKeyPEM, entry.teamId == credentials.teamId {
                return entry.client
            }
            clients[key]?.client.shutdown()
            let tokens = try tokenProvider(for: credentials)
            let client = builder.apnsClient(environment: environment, tokens: tokens, connections: configuration.apnsConnections)
            clients[key] = APNsEntry(client: client, keyPEM: credentials.privateKeyPEM, teamId: credentials.teamId)
            return client
        }
    }

    /// The token provider of the credentials' (team, key): one per key in this process, so
    /// the sandbox and production clients of a key use the same token.
    private func tokenProvider(for credentials: APNsCredentials) throws -> APNsTokenProvider {
        let key = credentials.teamId + "\u{0}" + credentials.keyId
        return try tokenProviders.withLock { providers in
            if let entry = providers.current[key], entry.keyPEM == credentials.privateKeyPEM { return entry.tokens }
            let tokens = try builder.apnsTokens(for: credentials)
            if let old = providers.current[key] {
                providers.retired[key, default: TokenCounts()].add(old.tokens)
            }
            providers.current[key] = TokenEntry(tokens: tokens, keyPEM: credentials.privateKeyPEM)
            return tokens
        }
    }

    /// What the APNs token providers did, by team and key id (since this sender started).
    func providerTokenCounts() -> [(teamId: String, keyId: String, counts: TokenCounts)] {
        tokenProviders.withLock { providers in
            var totals = providers.retired
            for (key, entry) in providers.current {
                totals[key, default: TokenCounts()].add(entry.tokens)
            }
            return totals.sorted { $0.key < $1.key }.map { key, counts in
                let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
                return (teamId: parts.first ?? "", keyId: parts.count > 1 ? parts[1] : "", counts: counts)
            }
        }
    }

    /// The FCM client for a service account, created on first use.
    func fcmClient(for credentials: FCMCredentials) throws -> FCMClient {
        let key = credentials.projectId + "\u{0}" + credentials.clientEmail + "\u{0}" + credentials.privateKeyId
        return try fcm.withLock { clients in
            if let entry = clients[key], entry.keyPEM == credentials.privateKeyPEM, entry.tokenURI == credentials.tokenURI {
                return entry.client
            }
            let client = try builder.fcmClient(for: credentials, http: fcmHTTP)
            clients[key] = FCMEntry(client: client, keyPEM: credentials.privateKeyPEM, tokenURI: credentials.tokenURI)
            return client
        }
    }

    /// Adds what the clients of a provider know (token age, connections) to `health`; nothing
    /// before the provider's first send.
    func describe(appId: String, providerId: String, into health: inout ProviderHealth) {
        switch credentials.withLock({ $0[appId + "\u{0}" + providerId] })?.credentials {
        case .apns(let apns):
            let key = builder.apnsEnvironment(for: apns).baseURL + "\u{0}" + apns.keyId
            guard let client = self.apns.withLock({ $0[key]?.client }) else { return }
            health.tokenIssuedAt = client.tokens.currentIssuedAt
            health.connections = client.connectionCount
            health.connectionsUp = client.connectionsUp
            health.inFlight = client.inFlight
        case .fcm:
            health.connections = 1
            health.connectionsUp = fcmHTTP.isAnswering ? 1 : 0
            health.inFlight = fcmHTTP.inFlight
        case nil:
            return
        }
    }

    /// Requests in flight on all APNs connections.
    var apnsInFlight: Int { apns.withLock { $0.values.reduce(0) { $0 + $1.client.inFlight } } }

    /// Closes every connection.
    func shutdown() {
        apns.withLock { clients in
            for entry in clients.values { entry.client.shutdown() }
            clients.removeAll()
        }
        fcmHTTP.shutdown()
    }
}
