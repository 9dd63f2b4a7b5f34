import Delivery
import Foundation
import PushCore
import PushMocks
import PushTestSupport
import Testing

/// `/healthz` and `/metrics` as `push-server` serves them (through `DeliveryService`).
@Suite(.serialized) struct HealthTests {
    /// An outbox whose database cannot be read.
    struct BrokenStore: OutboxStore {
        struct Broken: Error {}
        func claimPushJobs(limit: Int, lease: TimeInterval, now: Date, excluding excluded: Set<ProviderRef>) throws -> [PushJob] {
            throw Broken()
        }
        func finishPushJob(id: String, outcome: JobOutcome, now: Date) throws { throw Broken() }
        func pushJobCounts() throws -> OutboxCounts { throw Broken() }
    }

    /// The configuration `push-server` would use, pointed at the mock.
    static func options(for harness: DeliveryHarness) -> DeliveryConfiguration {
        DeliveryConfiguration(apnsBaseURL: harness.mock.baseURL, caFile: harness.mock.credentials.caFile)
    }

    @Test func healthShowsLiveTotalsAndTheOutboxDepth() async throws {
        let harness = try await DeliveryHarness.start()
        let directory = StaticDirectory(providers: [
            "apns-1": .apns(
                APNsCredentials(
                    keyId: MockPushServer.keyId, teamId: MockPushServer.teamId, bundleId: "com.example.app",
                    privateKeyPEM: harness.mock.credentials.apnsPrivateKeyPEM, production: false))
        ])
        let service = DeliveryService(
            store: harness.store, directory: directory, configuration: Self.options(for: harness),
            lastRegistration: { _, _ in nil }, logger: .silent)
        defer { service.stop() }
        for token in ["dd01", "dd02", "dd03"] {
            try harness.register(token)
            try harness.enqueue(token)
        }
        // Before the engine runs: three jobs wait, nothing is delivered.
        let before = service.health()
        #expect(before["status"] as? String == "ok")
        #expect((before["outbox"] as? [String: Int])?["pending"] == 3)
        #expect((before["delivery"] as? [String: Int])?["delivered"] == 0)
        #expect(service.metricsText().contains("push_queue_depth{state=\"pending\"} 3"))

        service.start()
        service.engine.wake()
        _ = await eventually(timeout: 15) { service.engine.metrics.delivered >= 3 }
        let after = service.health()
        #expect((after["delivery"] as? [String: Int])?["delivered"] == 3)
        #expect((after["delivery"] as? [String: Int])?["failed"] == 0)
        #expect(service.metricsText().contains("push_sent_total{provider=\"apns\"} 3"))
        // The JSON body is what /healthz sends.
        let text = String(decoding: try JSONSerialization.data(withJSONObject: after), as: UTF8.self)
        #expect(text.contains("\"delivered\":3"))
    }

    @Test func anUnreadableStoreIsDegraded() async throws {
        let harness = try await DeliveryHarness.start()
        let service = DeliveryService(
            store: BrokenStore(), directory: StaticDirectory(providers: [:]), configuration: Self.options(for: harness),
            lastRegistration: { _, _ in nil }, logger: .silent)
        defer { service.stop() }
        let health = service.health()
        #expect(health["status"] as? String == "degraded")
        #expect(health["outbox"] == nil)
        #expect(!service.metricsText().contains("push_queue_depth"))
    }
}
