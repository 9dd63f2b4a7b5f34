import Delivery
import Foundation
import PushCore
import PushStore
import Testing

/// Per-token APNs environment: a token of unknown environment refused as `BadDeviceToken` is
/// tried once in the other environment and, where it works, keeps that environment; a token
/// whose environment is known is never tried elsewhere; only a token refused by both is dead.
@Suite struct EnvironmentTests {
    /// Registers `token` with an environment, as the client API does when the SDK sends one.
    static func register(_ harness: DeliveryHarness, _ token: String, environment: TokenEnvironment?) throws {
        let now = Date()
        _ = try harness.store.registerToken(
            PushTokenRecord(
                appId: DeliveryHarness.app, uid: DeliveryHarness.user, token: token, platform: .apnsDevice, providerId: "apns-1",
                timezone: nil, authTokenHash: Data([1]), authTokenHint: "h", createdAt: now, updatedAt: now, environment: environment),
            maxPerUser: 100)
    }

    @Test func aTokenRefusedInOneEnvironmentIsTriedOnceInTheOtherAndKeepsIt() async throws {
        // Given a healthy provider and a token of unknown environment that only the other
        // environment accepts
        let harness = try await DeliveryHarness.start()
        harness.engine.start()
        try Self.register(harness, "f001", environment: nil)
        try Self.register(harness, "f0aa", environment: nil)
        try harness.enqueue("f0aa")
        #expect(try await harness.drain().delivered == 1)
        try harness.mock.script(["f001": [["status": 400, "reason": "BadDeviceToken"], ["status": 200]]])

        // When a push is sent to it
        let job = try harness.enqueue("f001")
        let counts = try await harness.drain()

        // Then it was delivered on the second try, with the same apns-id, and the token keeps
        // the environment that worked (the provider is sandbox: production worked)
        #expect(counts.delivered == 2 && counts.failed == 0)
        let requests = harness.mock.log(kind: "apns").filter { $0["token"] as? String == "f001" }
        #expect(requests.count == 2)
        #expect(Set(requests.compactMap { $0["apns_id"] as? String }) == [job.id.lowercased()])
        let stored = try harness.store.tokens(appId: DeliveryHarness.app, uid: nil).first { $0.token == "f001" }
        #expect(stored?.environment == .production)
        #expect(try harness.tokens().count == 2)
    }

    @Test func aTokenWithAKnownEnvironmentIsNotTriedElsewhereAndOneRefusedByBothIsDead() async throws {
        let harness = try await DeliveryHarness.start()
        harness.engine.start()
        try Self.register(harness, "f0aa", environment: .sandbox)
        try harness.enqueue("f0aa", environment: .sandbox)
        #expect(try await harness.drain().delivered == 1)
        // Given a sandbox token and a token of unknown environment, both refused everywhere
        try harness.mock.script([
            "f002": [["status": 400, "reason": "BadDeviceToken"]], "f003": [["status": 400, "reason": "BadDeviceToken"]],
        ])
        try Self.register(harness, "f002", environment: .sandbox)
        try Self.register(harness, "f003", environment: nil)
        try harness.enqueue("f002", environment: .sandbox)
        try harness.enqueue("f003")
        let counts = try await harness.drain()

        // Then both are dead; the sandbox one was tried once, the other once per environment
        #expect(counts.failed == 2)
        let log = harness.mock.log(kind: "apns")
        #expect(log.filter { $0["token"] as? String == "f002" }.count == 1)
        #expect(log.filter { $0["token"] as? String == "f003" }.count == 2)
        #expect(try harness.tokens() == ["f0aa"])
    }
}
