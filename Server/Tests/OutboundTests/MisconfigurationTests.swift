import Foundation
import PushCore
import ServerSupport
import PushMocks
import PushTestSupport
import PushService
import Testing

/// A misconfigured provider never deletes tokens, with twenty users of one device each: when
/// APNs answers every token with the same configuration error, the jobs wait and every token is
/// kept, and fixing the provider through the admin API delivers the waiting jobs at once.
/// Answers that prove the provider wrong (a revoked key, a wrong topic) open its breaker, shown
/// in `/healthz` (still 200: one app's provider is not the service's fault), the provider health
/// and the metrics; per-token answers (a wrong environment or bundle id) from a provider that has
/// not delivered since it was set up leave it `unknown`, which keeps the tokens the same way.
@Suite struct MisconfigurationTests {
    static let reasons: [(Int, String)] = [
        (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"), (403, "InvalidProviderToken"), (400, "BadTopic"), (403, "Forbidden"),
    ]
    static let users = 20

    static func provider(_ mock: MockPushServer) -> [String: Any] {
        [
            "providerId": "apns-1", "keyId": MockPushServer.keyId, "teamId": MockPushServer.teamId, "bundleId": "com.example.app",
            "p8Key": mock.credentials.apnsPrivateKeyPEM, "production": false,
        ]
    }

    /// Waits, while the jobs or the requests to the mock move, until `count` jobs are delivered.
    static func expectDelivered(_ count: Int, _ harness: Harness, _ mock: MockPushServer) async {
        let store = harness.store
        let delivered = await waitWhileProgressing(
            "delivery", { [(try? store.pushJobCounts())?.delivered ?? -1, mock.log(kind: "apns").count] }
        ) { $0[0] == count }
        #expect(delivered.done, "\(delivered.value[0]) delivered after \(delivered.value[1]) requests to APNs")
    }

    static func healthz(_ harness: Harness) async throws -> (status: Int, body: [String: Any]) {
        let response = try await harness.request("GET", "/healthz")
        return (response.status, try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:])
    }

    @Test(arguments: reasons)
    func everyTokenRefusedKeepsTheRegistryAndFixingTheProviderDeliversTheWaitingJobs(status: Int, reason: String) async throws {
        // Given a service delivering to a mock APNs that refuses every token with `reason`,
        // and retries far apart (so only the fix can deliver the jobs within the test)
        let mock = try await offThePool { try MockPushServer() }
        let tokens = (1...Self.users).map { String(format: "%04x", 0xd000 + $0) }
        try mock.script(Dictionary(uniqueKeysWithValues: tokens.map { ($0, [["status": status, "reason": reason]]) }))
        let harness = try await Harness.start(sender: .delivery) { configuration in
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
            configuration.delivery.retry = RetryPolicy(maxAttempts: 3, baseDelay: 120, maxDelay: 900)
            configuration.delivery.breaker.probe.baseDelay = 120
        }
        _ = try await harness.admin("POST", "/apps", ["appId": "app1", "name": "App"])
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", Self.provider(mock)).status == 200)
        for (n, token) in tokens.enumerated() {
            let user = try await harness.makeUser("user\(n)")
            #expect(try await harness.register(token, platform: "apns_ios_device", session: user).status == 200)
        }

        // When a chat is sent to the twenty users
        let send: [String: Any] = [
            "type": "chat", "recipients": (0..<Self.users).map { ["uid": "user\($0)"] },
            "message": ["id": "m1", "sender": ["uid": "alice"], "receiver": ["uid": "user0"], "text": "hi"],
        ]
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send).status == 200)

        // Then the jobs wait and every token is kept
        let proves = status == 403 || reason == "BadTopic"
        #expect(
            await eventually {
                (try? harness.store.pushJobCounts().inFlight) == 0 && mock.log(kind: "apns").count >= (proves ? 1 : Self.users)
            })
        let counts = try harness.store.pushJobCounts()
        #expect(counts.pending == Self.users && counts.failed == 0 && counts.delivered == 0, "jobs wait, none failed: \(counts)")
        #expect(try harness.store.tokens(appId: "app1", uid: nil).count == Self.users, "the registry keeps every token")
        let metrics = String(decoding: try await harness.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("push_tokens_removed_total 0"))
        // and /healthz (200 either way), the provider health and the metrics say what holds them
        let health = try await Self.healthz(harness)
        #expect(health.status == 200 && health.body["status"] as? String == "ok")
        let entries = health.body["misconfiguredProviders"] as? [[String: Any]] ?? []
        let providers = try await harness.admin("GET", "/admin/providers/health", appId: "app1")
        let apns = (providers.data["providers"] as? [[String: Any]] ?? []).first { $0["providerId"] as? String == "apns-1" }
        if proves {
            #expect(entries.first?["providerId"] as? String == "apns-1")
            #expect((entries.first?["reason"] as? String)?.contains(reason) == true)
            #expect(apns?["circuitBreaker"] as? String == "open")
            #expect((apns?["circuitBreakerReason"] as? String)?.contains(reason) == true)
            #expect(metrics.contains("push_provider_misconfigured 1"))
        } else {
            #expect(entries.isEmpty, "per-token answers from a provider that never delivered open nothing")
            #expect(apns?["circuitBreaker"] as? String == "unknown")
        }

        // When the provider is fixed (APNs accepts the tokens) and updated through the admin API
        try mock.script([:])
        #expect(try await harness.admin("PUT", "/notifications/push/v1/providers/apns", appId: "app1", Self.provider(mock)).status == 200)

        // Then the waiting jobs are delivered at once, every token is still there, and the
        // breaker is closed
        await Self.expectDelivered(Self.users, harness, mock)
        #expect(try harness.store.tokens(appId: "app1", uid: nil).count == Self.users)
        let healed = try await Self.healthz(harness)
        #expect(healed.status == 200 && healed.body["misconfiguredProviders"] == nil)
        let after = try await harness.admin("GET", "/admin/providers/health", appId: "app1")
        let fixed = (after.data["providers"] as? [[String: Any]] ?? []).first { $0["providerId"] as? String == "apns-1" }
        #expect(fixed?["circuitBreaker"] as? String == "closed")
    }

    @Test func aProbeThatSucceedsClosesTheBreakerWithoutAnUpdate() async throws {
        // Given a provider whose every token was refused, then APNs accepts again
        let mock = try await offThePool { try MockPushServer() }
        try mock.script(["e101": [["status": 403, "reason": "InvalidProviderToken"], ["status": 200]]])
        let log = RecordingLogHandler()
        let harness = try await Harness.start(
            sender: .delivery,
            configure: { configuration in
                configuration.delivery.apnsBaseURL = mock.baseURL
                configuration.delivery.caFile = mock.credentials.caFile
                configuration.delivery.retry = RetryPolicy(maxAttempts: 3, baseDelay: 0.2, maxDelay: 1)
                configuration.delivery.breaker.probe.baseDelay = 0.2
            }, logs: log)
        _ = try await harness.admin("POST", "/apps", ["appId": "app1", "name": "App"])
        _ = try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", Self.provider(mock))
        let bob = try await harness.makeUser("bob")
        try await harness.register("e101", platform: "apns_ios_device", session: bob)
        let send: [String: Any] = [
            "type": "chat", "recipients": [["uid": "bob"]],
            "message": ["id": "m1", "sender": ["uid": "alice"], "receiver": ["uid": "bob"], "text": "hi"],
        ]
        _ = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send)

        // Then a back-off retry of the waiting job succeeds and closes the breaker
        await Self.expectDelivered(1, harness, mock)
        #expect(try await Self.healthz(harness).body["misconfiguredProviders"] == nil)
        #expect(mock.log(kind: "apns").count == 2)
        // and the log says so at the level each deserves: the breaker opening (no push of the
        // provider goes out: an operator must look) as an error, its closing as info
        #expect(log.records(containing: "apns-1 is misconfigured").map(\.level) == [.error])
        #expect(log.records(containing: "apns-1 answers again").map(\.level) == [.info])
    }
}
