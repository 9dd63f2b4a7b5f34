#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import APNs
import CurlHTTP
import PushCore
import PushCrypto
import ServerSupport

/// Where and how the delivery engine connects to APNs and FCM.
public struct DeliveryConfiguration: Sendable {
    /// Replaces both APNs hosts (tests and benchmarks point it at a mock).
    public var apnsBaseURL: String?
    /// The FCM API host.
    public var fcmBaseURL: String
    /// A CA bundle to trust instead of the system store (a mock's test CA).
    public var caFile: String?
    /// Retry policy for temporary failures.
    public var retry: RetryPolicy
    /// Per-request time limit.
    public var requestTimeoutMilliseconds: Int
    /// How long decrypted provider credentials are cached.
    public var providerCacheSeconds: TimeInterval
    /// HTTP/2 connections per APNs pool (environment, key id), each driven by its own thread.
    public var apnsConnections: Int = 4
    /// What APNs pushes go out with: libcurl or the HTTP/2 client of our own (`--apns-transport`).
    public var apnsTransport: APNsTransport = .native
    /// The per-provider circuit breaker's tuning.
    public var breaker = ProviderBreakers.Settings()
    /// Where the instances of a cluster share each key's APNs provider token (nil: each
    /// sender signs its own). The service sets it to ``StoredProviderTokens`` over its store.
    public var providerTokenSharing: (any ProviderTokenSharing)?
    /// Private blocks the FCM token exchange may reach (`--allow-private-destinations`): a
    /// service account's `token_uri` must be Google's, or lead into one of these (a test
    /// server); it is checked at every connection (``tokenDestinations``).
    public var privateDestinations: [CIDRBlock] = []

    /// Where the FCM token exchanges may connect: public `https` addresses and
    /// ``privateDestinations`` (a `token_uri` other than Google's: only the latter).
    public var tokenDestinations: DestinationPolicy { DestinationPolicy(allowedBlocks: privateDestinations) }

    /// Creates a configuration.
    public init(
        apnsBaseURL: String? = nil, fcmBaseURL: String = "https://fcm.googleapis.com", caFile: String? = nil,
        retry: RetryPolicy = RetryPolicy(), requestTimeoutMilliseconds: Int = 15_000, providerCacheSeconds: TimeInterval = 30
    ) {
        self.apnsBaseURL = apnsBaseURL
        self.fcmBaseURL = fcmBaseURL
        self.caFile = caFile
        self.retry = retry
        self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        self.providerCacheSeconds = providerCacheSeconds
    }
}

extension DeliveryConfiguration {
    /// This configuration with the APNs provider tokens shared through `store`, sealed with
    /// `secrets` (``StoredProviderTokens``): every instance on the store uses one token per key.
    /// The sharing's problems are told to `logger`.
    public func sharingProviderTokens(through store: any ProviderTokenStore, secrets: SecretBox, logger: Logger) -> DeliveryConfiguration {
        var configuration = self
        configuration.providerTokenSharing = StoredProviderTokens(store: store, secrets: secrets, logger: logger)
        return configuration
    }
}
