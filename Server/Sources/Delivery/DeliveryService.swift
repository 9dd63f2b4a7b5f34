#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

/// The delivery engine as the running service uses it: engine, sender and the text of the
/// `/metrics` and `/healthz` endpoints. Each service owns one (nothing is process-global).
public final class DeliveryService: DeliveryStatus {
    /// The outbox workers.
    public let engine: DeliveryEngine
    /// The APNs/FCM sender, when the service delivers (`--sender delivery`).
    public let sender: DeliverySender?
    private let store: any OutboxStore
    /// The sender that seals private pushes, when the service has their keys.
    private let privateSender: PrivatePushSender?
    private let clock: any ServiceClock
    /// The outbox depth, counted at most once a second: counting scans the jobs' index and
    /// holds the store, so frequent health checks must not pay it each time.
    private let depth = Locked<(at: Date, counts: OutboxCounts?)?>(nil)

    /// Builds the engine over `store`, delivering to APNs/FCM with credentials from `directory`.
    /// - Parameters:
    ///   - lastRegistration: when a token was last registered (for the 410 rule).
    ///   - logger: the service's logger, for the engine, the sender and the provider events.
    ///   - clock: where the engine and the sender take their time from.
    public convenience init(
        store: any OutboxStore, directory: any ProviderDirectory, configuration: DeliveryConfiguration,
        engine: DeliveryEngine.Configuration = DeliveryEngine.Configuration(),
        lastRegistration: @escaping @Sendable (_ appId: String, _ token: String) -> Date?,
        logger: Logger, clock: any ServiceClock = SystemClock(), privateKeys: PrivatePushSender.Keys? = nil
    ) {
        let wake = Locked<DeliveryEngine?>(nil)
        let events = DeliverySender.Events(
            learnedEnvironment: { appId, token, environment in
                do {
                    try store.recordTokenEnvironment(appId: appId, token: token, environment: environment)
                } catch {
                    logger.error("delivery: storing a token's environment failed: \(error)")
                }
            },
            providerRecovered: { appId, providerId in
                let released = (try? store.releaseWaitingJobs(appId: appId, providerId: providerId, now: clock.now)) ?? 0
                if released > 0 { logger.info("delivery: \(released) waiting jobs of \(appId)/\(providerId) are due now") }
                wake.withLock { $0 }?.wake()
            })
        // A failed read counts as "never delivered" / "unknown": the safe side (a token is
        // then deleted only while the provider is known and healthy; nothing opens).
        let sender = DeliverySender(
            directory: directory, configuration: configuration, lastRegistration: lastRegistration,
            tokenDelivered: { appId, token in (try? store.tokenHasDelivered(appId: appId, token: token)) ?? false },
            lastDelivery: { appId, providerId in try? store.providerLastDelivered(appId: appId, providerId: providerId) },
            events: events, logger: logger, now: { clock.now })
        self.init(store: store, sender: sender, engine: engine, logger: logger, clock: clock, privateKeys: privateKeys)
        wake.withLock { $0 = self.engine }
    }

    /// A provider was created, changed or deleted through the admin API: its credentials
    /// are read again, its circuit breaker closes and its waiting jobs are retried now.
    public func providerUpdated(appId: String, providerId: String) {
        sender?.providerUpdated(appId: appId, providerId: providerId)
        engine.wake()
    }

    /// Builds the engine over `store` with any sender (`LogSender`, `NoneSender`, a test double),
    /// logging through `logger`, on `clock`. With `privateKeys`, the sender is wrapped in a
    /// ``PrivatePushSender`` that seals private pushes with the tokens' keys (issue 28).
    public init(
        store: any OutboxStore, sender: any PushSender, engine: DeliveryEngine.Configuration = DeliveryEngine.Configuration(),
        logger: Logger, clock: any ServiceClock = SystemClock(), privateKeys: PrivatePushSender.Keys? = nil
    ) {
        self.store = store
        self.clock = clock
        self.sender = sender as? DeliverySender
        privateSender = privateKeys.map {
            PrivatePushSender(wrapping: sender, keys: $0.store, open: $0.open, logger: logger, now: { clock.now })
        }
        self.engine = DeliveryEngine(
            store: store, sender: privateSender ?? sender, configuration: engine, logger: logger, clock: clock)
    }

    /// Starts the workers.
    public func start() { engine.start() }

    /// Ends the engine's idle wait early: jobs were added (by another instance, say).
    public func wake() { engine.wake() }

    /// Stops the workers (waiting briefly for sends in flight) and closes connections.
    public func stop() {
        engine.stop(timeout: 10)
        privateSender?.stop()
        sender?.shutdown()
    }

    /// What the sender recorded about a provider (for `GET /admin/providers/health`).
    public func providerHealth(appId: String, providerId: String) -> ProviderHealth {
        sender?.providerHealth(appId: appId, providerId: providerId) ?? ProviderHealth()
    }

    /// The Prometheus text for `/metrics`.
    public func metricsText() -> String {
        var text = engine.metrics.prometheusText(queue: outboxDepth())
        let open = sender?.breakers.open() ?? []
        text += "# HELP push_provider_misconfigured Providers whose circuit breaker is open (jobs wait, no token is deleted).\n"
        text += "# TYPE push_provider_misconfigured gauge\n"
        text += "push_provider_misconfigured \(open.count)\n"
        for entry in open {
            let label = DeliveryMetrics.label(entry.appId + "_" + entry.providerId)
            text += "push_provider_misconfigured_info{provider=\"\(label)\"} 1\n"
        }
        if let sender { text += ProviderTokenCounts.prometheusText(sender.providerTokenCounts()) }
        return text
    }

    /// The JSON object for `/healthz`: engine state and totals (live), outbox depth (at most
    /// a second old; `degraded` when the store cannot be read). Misconfigured providers are
    /// listed (`misconfiguredProviders`) but leave the status `ok`: they are one app's
    /// problem, and a load balancer must not take the whole service out for them.
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
            body["reason"] = "the outbox cannot be read"
        }
        let open = sender?.breakers.open() ?? []
        if !open.isEmpty {
            body["misconfiguredProviders"] = open.map { ["appId": $0.appId, "providerId": $0.providerId, "reason": $0.reason] }
        }
        return body
    }

    private func outboxDepth() -> OutboxCounts? {
        let now = clock.now
        if let cached = depth.withLock({ $0 }), abs(now.timeIntervalSince(cached.at)) < 1 { return cached.counts }
        let counts = try? store.activePushJobCounts()
        depth.withLock { $0 = (now, counts) }
        return counts
    }
}
