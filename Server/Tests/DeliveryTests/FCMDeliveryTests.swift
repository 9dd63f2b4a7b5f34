import Delivery
import Foundation
import PushCore
import PushTestSupport
import Testing

@Suite(.serialized) struct FCMDeliveryTests {
    let harness: DeliveryHarness

    init() async throws {
        harness = try await DeliveryHarness.start()
        harness.engine.start()
    }

    @Test func messagesAreSentWithOneTokenExchange() async throws {
        // Given two FCM tokens
        try harness.register("fcm-a", platform: .fcm)
        try harness.register("fcm-b", platform: .fcm)

        // When both get a push
        try harness.enqueue("fcm-a", platform: .fcm)
        try harness.enqueue("fcm-b", platform: .fcm)
        // The first test of the run: its mock and the first OAuth exchange start while every
        // other suite starts too. On a loaded machine (load average 20 on 2 cores) the exchange
        // took over 15 s; drain returns as soon as the outbox is empty, so a long deadline costs
        // nothing when the machine is not loaded.
        let counts = try await harness.drain()
        #expect(counts.delivered == 2, "\(counts); mock log: \(harness.mock.log())")

        // Then the service-account JWT was exchanged once (the mock verified its RS256
        // signature and claims) and the messages carry data strings and APNs headers
        let exchanges = harness.mock.log(kind: "oauth")
        #expect(exchanges.count == 1)
        #expect(exchanges.first?["status"] as? Int == 200)
        let sent = harness.mock.log(kind: "fcm")
        #expect(sent.count == 2)
        let message = try #require(sent.first?["message"] as? [String: Any])
        let data = try #require(message["data"] as? [String: String])
        #expect(data["unreadMessageCount"] == "3")
        #expect(data["sender"] == "u2")
        let apns = try #require(message["apns"] as? [String: Any])
        #expect((apns["headers"] as? [String: String])?["apns-push-type"] == "alert")
        #expect((message["notification"] as? [String: String])?["title"] == "Hi")
    }

    @Test func unregisteredDeletesTheToken() async throws {
        try harness.register("fcm-dead", platform: .fcm)
        try harness.mock.script(["fcm-dead": [["status": 404, "fcm_error": "UNREGISTERED"]]])
        try harness.enqueue("fcm-dead", platform: .fcm)
        #expect(try await harness.drain().failed == 1)
        #expect(try harness.tokens().isEmpty)
    }

    @Test func quotaExceededBacksOffAtLeastAMinute() async throws {
        try harness.register("fcm-q", platform: .fcm)
        try harness.mock.script(["fcm-q": [["status": 429, "fcm_error": "QUOTA_EXCEEDED"]]])
        let job = try harness.enqueue("fcm-q", platform: .fcm)
        // Wait until the engine has answered the attempt: the job is pending again, not before later
        func storedJob() throws -> PushJob? { try harness.store.allPushJobs().first { $0.id == job.id } }
        _ = try await eventually(timeout: 10, every: .milliseconds(10)) {
            guard !harness.mock.log(kind: "fcm").isEmpty, try harness.store.pushJobCounts().pending == 1, let stored = try storedJob()
            else { return false }
            return stored.notBefore > job.notBefore
        }
        #expect(harness.mock.log(kind: "fcm").count == 1)
        let stored = try #require(try storedJob())
        #expect(stored.notBefore.timeIntervalSinceNow > 55)
        #expect(try harness.store.pushJobCounts().pending == 1)
    }

    @Test func unavailableHonoursRetryAfterThenDelivers() async throws {
        try harness.register("fcm-u", platform: .fcm)
        try harness.mock.script(["fcm-u": [["status": 503, "fcm_error": "UNAVAILABLE", "retry_after": 1], ["status": 200]]])
        try harness.enqueue("fcm-u", platform: .fcm)
        #expect(try await harness.drain().delivered == 1)
        let times = harness.mock.log(kind: "fcm").compactMap { $0["t"] as? Double }
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1] - times[0] >= 0.95) }
    }

    @Test func invalidArgumentFailsWithoutRetry() async throws {
        try harness.register("fcm-i", platform: .fcm)
        try harness.mock.script(["fcm-i": [["status": 400, "fcm_error": "INVALID_ARGUMENT"]]])
        try harness.enqueue("fcm-i", platform: .fcm)
        #expect(try await harness.drain().failed == 1)
        #expect(harness.mock.log(kind: "fcm").count == 1)
        #expect(try harness.tokens() == ["fcm-i"])
    }

    @Test func voipCannotGoThroughFCM() async throws {
        try harness.register("fcm-v", platform: .fcm)
        let job = PushJob.test(
            appId: DeliveryHarness.app, requestId: "r", uid: DeliveryHarness.user, token: "fcm-v", kind: .call, platform: .fcm,
            providerId: "fcm-1", attempts: 1)
        #expect(await harness.sender.send(job) == .failed(reason: "FCM cannot carry VoIP pushes"))
    }
}
