#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// The delivery engine as the running service uses it: engine, sender and the text of the
/// `/metrics` and `/healthz` endpoints. Each service owns one (nothing is process-global).
public final class DeliveryService: DeliveryStatus {
    /// The outbox workers.
    public let engine: DeliveryEngine
    /// The APNs/FCM sender, when the service delivers (`--sender delivery`).
    public let sender: DeliverySender?
    private let store: any OutboxStore
    /// The outbox depth, counted at most once a second: counting scans the jobs' index and
    /// holds the store, so frequent health checks must not pay it each time.
    private let depth = Locked<(at: ContinuousClock.Instant, counts: OutboxCounts?)?>(nil)

    /// Builds the engine over `store`, delivering to APNs/FCM with credentials from `directory`.
    /// - Parameter lastRegistration: when a token was last registered (for the 410 rule).
    public convenience init(
        store: any OutboxStore, directory: any ProviderDirectory, configuration: DeliveryConfiguration,
        engine: DeliveryEngine.Configuration = DeliveryEngine.Configuration(),
        lastRegistration: @escaping @Sendable (_ appId: String, _ token: String) -> Date?,
        log: @escaping @Sendable (String) -> Void
    ) {
        let sender = DeliverySender(directory: directory, configuration: configuration, lastRegistration: lastRegistration)
        self.init(store: store, sender: sender, engine: engine, log: log)
    }

    /// Builds the engine over `store` with any sender (`LogSender`, `NoneSender`, a test double).
    public init(
        store: any OutboxStore, sender: any PushSender, engine: DeliveryEngine.Configuration = DeliveryEngine.Configuration(),
        log: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.sender = sender as? DeliverySender
        self.engine = DeliveryEngine(store: store, sender: sender, configuration: engine, log: log)
    }

    /// Starts the workers.
    public func start() { engine.start() }

    /// Stops the workers (waiting briefly for sends in flight) and closes connections.
    public func stop() {
        engine.stop(timeout: 10)
        sender?.shutdown()
    }

    /// What the sender recorded about a provider (for `GET /admin/providers/health`).
    public func providerHealth(appId: String, providerId: String) -> ProviderHealth {
        sender?.providerHealth(appId: appId, providerId: providerId) ?? ProviderHealth()
    }

    /// The Prometheus text for `/metrics`.
    public func metricsText() -> String {
        engine.metrics.prometheusText(queue: outboxDepth())
    }

    /// The JSON object for `/healthz`: engine state and totals (live), outbox depth (at most
    /// a second old; `degraded` when the store cannot be read).
    public func health() -> [String: Any] {
        let metrics = engine.metrics
        var body: [String: Any] = [
            "status": "ok",
            "delivery": ["inFlight": engine.inFlight, "delivered": metrics.delivered, "failed": metrics.failed],
        ]
        if let counts = outboxDepth() {
            body["outbox"] = ["pending": counts.pending, "inFlight": counts.inFlight]
        } else {
            body["status"] = "degraded"
        }
        return body
    }

    private func outboxDepth() -> OutboxCounts? {
        let now = ContinuousClock.now
        if let cached = depth.withLock({ $0 }), now - cached.at < .seconds(1) { return cached.counts }
        let counts = try? store.pushJobCounts()
        depth.withLock { $0 = (now, counts) }
        return counts
    }
}
