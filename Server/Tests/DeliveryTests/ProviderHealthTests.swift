import Delivery
import Foundation
import PushCore
import PushTestSupport
import Testing

/// What the sender records per provider for `GET /admin/providers/health` and the dashboard:
/// last success, last error and its reason, the JWT in use, the connections.
@Suite(.serialized) struct ProviderHealthTests {
    @Test func theSenderRecordsEachProvidersHealth() async throws {
        let started = Date()
        let harness = try await DeliveryHarness.start()
        harness.engine.start()
        let app = DeliveryHarness.app
        var fresh = ProviderHealth()
        fresh.circuitBreaker = "unknown"
        #expect(harness.sender.providerHealth(appId: app, providerId: "apns-1") == fresh, "nothing before the first send: unknown")

        try harness.register("aa01")
        try harness.enqueue("aa01")
        #expect(try await harness.drain().delivered == 1)
        let delivered = harness.sender.providerHealth(appId: app, providerId: "apns-1")
        #expect(delivered.delivered == 1 && delivered.failed == 0)
        // Recorded during this test (not a wall-clock window: a loaded machine can take long).
        #expect(delivered.lastSuccessAt.map { $0 >= started && $0 <= Date() } == true, "\(String(describing: delivered.lastSuccessAt))")
        #expect(delivered.lastErrorAt == nil && delivered.lastErrorReason == nil)
        // The JWT's iat is whole seconds: signed during this test, within the second it started.
        #expect(
            delivered.tokenIssuedAt.map { $0 >= started.addingTimeInterval(-1) && $0 <= Date() } == true, "the JWT in use was just signed")
        #expect(delivered.connections == DeliveryConfiguration().apnsConnections)
        #expect(delivered.connectionsUp == 1, "one connection answered one push")
        #expect(delivered.circuitBreaker == "closed" && delivered.circuitBreakerReason == nil)

        try harness.mock.script(["bb02": [["status": 400, "reason": "BadDeviceToken"]]])
        try harness.register("bb02")
        try harness.enqueue("bb02")
        _ = try await harness.drain()
        let refused = harness.sender.providerHealth(appId: app, providerId: "apns-1")
        #expect(refused.lastErrorReason == "BadDeviceToken" && refused.lastErrorAt != nil)
        #expect(refused.delivered == 1 && refused.failed == 1)
        #expect(refused.lastSuccessAt == delivered.lastSuccessAt)
        #expect(harness.sender.providerHealth(appId: app, providerId: "fcm-1") == fresh, "another provider is untouched")
        #expect(harness.sender.providerHealth(appId: "other-app", providerId: "apns-1") == fresh, "per app")

        // APNs unreachable: the reason says so.
        harness.mock.stop()
        try harness.register("cc03")
        try harness.enqueue("cc03")
        var health = harness.sender.providerHealth(appId: app, providerId: "apns-1")
        _ = await eventually(timeout: 15) {
            health = harness.sender.providerHealth(appId: app, providerId: "apns-1")
            return health.lastErrorReason?.hasPrefix("network") == true
        }
        #expect(health.lastErrorReason?.hasPrefix("network") == true, "\(health.lastErrorReason ?? "none")")
    }
}
