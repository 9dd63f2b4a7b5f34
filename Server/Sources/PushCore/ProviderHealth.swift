#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the delivery engine knows about one provider since the process started: the last
/// accepted push, the last refusal and its reason, the APNs provider token (JWT) in use and
/// the connections to the provider. The admin API shows it (`GET /admin/providers/health`).
public struct ProviderHealth: Sendable, Equatable {
    /// When the provider last accepted a push.
    public var lastSuccessAt: Date?
    /// When the provider last refused a push or could not be reached.
    public var lastErrorAt: Date?
    /// Why (APNs' or FCM's reason, or the transport error), never a secret.
    public var lastErrorReason: String?
    /// Pushes the provider accepted.
    public var delivered = 0
    /// Attempts that did not end in delivery (retried, failed or a dead token).
    public var failed = 0
    /// When the APNs provider token (JWT) in use was signed; nil before the first APNs send
    /// and for FCM providers.
    public var tokenIssuedAt: Date?
    /// Connections in the provider's pool (0 before the first send).
    public var connections = 0
    /// Of these, the ones whose last request was answered.
    public var connectionsUp = 0
    /// Requests sent and not yet answered.
    public var inFlight = 0
    /// The circuit breaker's state: `closed` (sending), `open` (misconfigured: jobs wait, no
    /// token is deleted); nil while the engine has none.
    public var circuitBreaker: String?
    /// Why the breaker is open (which answers, how many); nil while closed.
    public var circuitBreakerReason: String?

    /// Empty health: nothing sent yet.
    public init() {}
}

/// The delivery engine's view of providers, for the admin API. `push-server` hands the
/// engine to the service once both run.
public protocol DeliveryStatus: Sendable {
    /// The health of provider `providerId` of app `appId` (empty when it was never used).
    func providerHealth(appId: String, providerId: String) -> ProviderHealth
}
