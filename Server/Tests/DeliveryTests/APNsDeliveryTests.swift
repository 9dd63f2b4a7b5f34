import Delivery
import Foundation
import PushCore
import Testing

@Suite(.serialized) struct APNsDeliveryTests {
    let harness: DeliveryHarness

    init() async throws {
        harness = try await DeliveryHarness.start()
        harness.engine.start()
    }

    @Test func aPushIsDeliveredAndRecorded() async throws {
        try harness.register("a1")
        try harness.enqueue("a1")
        let counts = try await harness.drain()
        #expect(counts.delivered == 1)
        #expect(harness.mock.log(kind: "apns").map { $0["status"] as? Int } == [200])
        #expect(harness.engine.metrics.delivered == 1)
        #expect(harness.engine.metrics.prometheusText(queue: counts).contains("push_sent_total{provider=\"apns\"} 1"))
    }

    @Test func aVoipPushGoesToTheVoipTopic() async throws {
        try harness.register("b1", platform: .apnsVoIP)
        try harness.enqueue("b1", platform: .apnsVoIP, kind: .call, payload: #"{"type":"call","callAction":"initiated"}"#)
        #expect(try await harness.drain().delivered == 1)
        let entry = try #require(harness.mock.log(kind: "apns").first)
        #expect(entry["topic"] as? String == "com.example.app.voip")
        #expect(entry["push_type"] as? String == "voip")
    }

    @Test(arguments: [(410, "Unregistered"), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic")])
    func aDeadTokenIsDeletedAndTheNextSendSkipsIt(status: Int, reason: String) async throws {
        // Given a healthy provider (it just accepted a push) and a registered token APNs says is dead
        try harness.register("c1")
        try harness.register("c2")
        try harness.enqueue("c2")
        #expect(try await harness.drain().delivered == 1)
        let now = Int(Date().timeIntervalSince1970 * 1000) + 1000
        try harness.mock.script(["c1": [["status": status, "reason": reason, "timestamp": now]]])

        // When a push is sent to it
        try harness.enqueue("c1")
        let counts = try await harness.drain()

        // Then the job failed and the token is gone; it was tried once (a BadDeviceToken
        // of unknown environment once in each environment)
        #expect(counts.failed == 1)
        #expect(try harness.tokens() == ["c2"])
        #expect(harness.mock.log(kind: "apns").filter { $0["token"] as? String == "c1" }.count == (reason == "BadDeviceToken" ? 2 : 1))
        #expect(harness.engine.metrics.tokensRemoved == 1)
        // And the delivery log (admin API) shows why
        let log = try harness.store.pushJobLog(appId: DeliveryHarness.app, requestId: "req-1")
        #expect(log.map(\.state) == ["delivered", "failed"] || log.map(\.state) == ["failed", "delivered"])
        #expect(log.first { $0.state == "failed" }?.lastError == reason)
        #expect(log.allSatisfy { $0.finishedAt != nil })
    }

    @Test func a410OlderThanTheLastRegistrationKeepsTheToken() async throws {
        // Given a token registered again after APNs last saw it invalid
        try harness.register("d1", at: Date())
        let stale = Int(Date().addingTimeInterval(-3600).timeIntervalSince1970 * 1000)
        try harness.mock.script(["d1": [["status": 410, "reason": "Unregistered", "timestamp": stale]]])

        // When APNs answers 410 with that older timestamp
        try harness.enqueue("d1")
        let counts = try await harness.drain()

        // Then the job fails but the token stays
        #expect(counts.failed == 1)
        #expect(try harness.tokens() == ["d1"])
    }

    @Test func retriesHonourRetryAfter() async throws {
        // Given APNs throttles the first attempt and asks to come back in 1 second
        try harness.register("e1")
        try harness.mock.script(["e1": [["status": 429, "reason": "TooManyRequests", "retry_after": 1], ["status": 200]]])

        // When
        try harness.enqueue("e1")
        let counts = try await harness.drain()

        // Then it was delivered on the second attempt, no sooner than a second later
        #expect(counts.delivered == 1)
        let times = harness.mock.log(kind: "apns").compactMap { $0["t"] as? Double }
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1] - times[0] >= 0.95) }
    }

    @Test(arguments: [500, 503])
    func serverErrorsAreRetriedThenDelivered(status: Int) async throws {
        try harness.register("f1")
        try harness.mock.script(["f1": [["status": status, "reason": "ServiceUnavailable"], ["status": 200]]])
        try harness.enqueue("f1")
        #expect(try await harness.drain().delivered == 1)
        #expect(harness.mock.log(kind: "apns").count == 2)
    }

    @Test func retriesStopAtTheLimitAndTheJobIsRecordedFailed() async throws {
        try harness.register("0a01")
        try harness.mock.script(["0a01": [["status": 500, "reason": "InternalServerError"]]])
        try harness.enqueue("0a01")
        let counts = try await harness.drain()
        #expect(counts.failed == 1)
        #expect(harness.mock.log(kind: "apns").count == 3)
        #expect(try harness.tokens() == ["0a01"])
    }

    /// (BadTopic, InvalidProviderToken and other configuration answers make jobs wait: see
    /// MisconfigurationTests.)
    @Test(arguments: [(413, "PayloadTooLarge"), (400, "BadPriority")])
    func permanentErrorsFailWithoutRetryAndKeepTheToken(status: Int, reason: String) async throws {
        try harness.register("0b01")
        try harness.mock.script(["0b01": [["status": status, "reason": reason]]])
        try harness.enqueue("0b01")
        #expect(try await harness.drain().failed == 1)
        #expect(harness.mock.log(kind: "apns").count == 1)
        #expect(try harness.tokens() == ["0b01"])
    }

    @Test func anExpiredProviderTokenIsReplacedAndRetriedOnce() async throws {
        try harness.register("0c01")
        try harness.mock.script(["0c01": [["status": 403, "reason": "ExpiredProviderToken"], ["status": 200]]])
        try harness.enqueue("0c01")
        #expect(try await harness.drain().delivered == 1)
        let jwts = harness.mock.log(kind: "apns").compactMap { $0["jwt"] as? String }
        #expect(jwts.count == 2 && jwts[0] != jwts[1])
    }

    @Test func anOversizedPayloadFailsWithoutBeingSent() async throws {
        try harness.register("0d01")
        try harness.enqueue("0d01", payload: #"{"aps":{"alert":""# + String(repeating: "x", count: 5000) + #""}}"#)
        #expect(try await harness.drain().failed == 1)
        #expect(harness.mock.log(kind: "apns").isEmpty)
    }
}
