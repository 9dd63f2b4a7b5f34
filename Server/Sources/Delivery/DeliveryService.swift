#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// The delivery engine as the running service uses it: engine, sender and the text of the
/// `/metrics` and `/healthz` endpoints.
public final class DeliveryService: Sendable {
    /// The outbox workers.
    public let engine: DeliveryEngine
    /// The APNs/FCM sender.
    public let sender: DeliverySender
    private let store: any OutboxStore

    /// Builds the engine over `store`, with credentials from `directory`.
    /// - Parameter lastRegistration: when a token was last registered (for the 410 rule).
    public init(
        store: any OutboxStore, directory: any ProviderDirectory, options: DeliveryOptions,
        lastRegistration: @escaping @Sendable (_ appId: String, _ token: String) -> Date?,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        sender = DeliverySender(directory: directory, configuration: options.configuration, lastRegistration: lastRegistration)
        engine = DeliveryEngine(store: store, sender: sender, configuration: options.engine, log: log)
    }

    /// Starts the workers.
    public func start() { engine.start() }

    /// Stops the workers (waiting briefly for sends in flight) and closes connections.
    public func stop() {
        engine.stop(timeout: 10)
        sender.shutdown()
    }

    /// The Prometheus text for `/metrics`.
    public func metricsText() -> String {
        engine.metrics.prometheusText(queue: try? store.pushJobCounts())
    }

    /// The JSON object for `/healthz`: engine state and outbox depth.
    public func health() -> [String: Any] {
        var body: [String: Any] = ["status": "ok", "delivery": ["inFlight": engine.inFlight]]
        if let counts = try? store.pushJobCounts() {
            body["outbox"] = ["pending": counts.pending, "inFlight": counts.inFlight]
        } else {
            body["status"] = "degraded"
        }
        return body
    }
}
