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

/// The one place that builds APNs and FCM clients from a provider's credentials and the
/// delivery configuration (hosts, CA file, time limit, shared provider tokens). The engine's
/// cached clients (``ProviderClients``) and `check-provider` (``ProviderCheck``) both build
/// theirs here, so a test push goes out as a delivered one does.
struct ProviderClientBuilder: Sendable {
    let configuration: DeliveryConfiguration

    /// Where the APNs clients of `credentials` connect: the configured base URL (a mock) when
    /// there is one, otherwise production or sandbox as `production` says (nil: as the
    /// credentials say).
    func apnsEnvironment(for credentials: APNsCredentials, production: Bool? = nil) -> APNsEnvironment {
        configuration.apnsBaseURL.map { .custom(baseURL: $0) } ?? ((production ?? credentials.production) ? .production : .sandbox)
    }

    /// A provider-token cache for the credentials' key, sharing its tokens through the
    /// configuration's `providerTokenSharing` when there is one. Throws when the key does not
    /// parse or is not a P-256 key.
    func apnsTokens(for credentials: APNsCredentials) throws -> APNsTokenProvider {
        try APNsTokenProvider(
            key: PrivateKey(pem: credentials.privateKeyPEM), keyId: credentials.keyId, teamId: credentials.teamId,
            sharing: configuration.providerTokenSharing)
    }

    /// An APNs client to `environment` that signs with `tokens`, with a pool of `connections`.
    func apnsClient(environment: APNsEnvironment, tokens: APNsTokenProvider, connections: Int) -> APNsClient {
        APNsClient(
            environment: environment, tokens: tokens, http: HTTP2Client.Configuration(caFile: configuration.caFile),
            connections: connections, timeoutMilliseconds: configuration.requestTimeoutMilliseconds,
            transport: configuration.apnsTransport)
    }

    /// The connection pool FCM clients send on (and exchange their OAuth tokens on).
    func fcmHTTP(name: String) -> HTTP2Client {
        HTTP2Client(configuration: HTTP2Client.Configuration(caFile: configuration.caFile), name: name)
    }

    /// The service account of FCM credentials. Throws when its private key does not parse.
    static func fcmAccount(for credentials: FCMCredentials) throws -> FCMServiceAccount {
        try FCMServiceAccount(
            projectId: credentials.projectId, clientEmail: credentials.clientEmail, privateKeyId: credentials.privateKeyId,
            tokenURI: credentials.tokenURI, privateKeyPEM: credentials.privateKeyPEM)
    }

    /// An FCM client for the credentials' service account, on `http`, whose token exchange
    /// may connect only where the configuration's `tokenDestinations` allow.
    func fcmClient(for credentials: FCMCredentials, http: HTTP2Client) throws -> FCMClient {
        FCMClient(
            account: try Self.fcmAccount(for: credentials), baseURL: configuration.fcmBaseURL, http: http,
            tokenDestinations: configuration.tokenDestinations)
    }
}
