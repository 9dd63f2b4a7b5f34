import Foundation
import PushCore
import PushTestSupport
import Testing

/// The trace of a push (`GET /notifications/push/v1/send/{requestId}/trace`): the steps the
/// service records and the ones the SDK reports (delivered, opened, replied), and the funnel
/// of `/metrics`.
@Suite struct TraceTests {
    static var message: [String: Any] {
        [
            "type": "chat", "recipients": [["uid": "bob"]],
            "message": [
                "id": "m1", "sender": ["uid": "alice", "name": "Alice"], "receiver": ["uid": "bob", "name": "Bob"], "text": "hi",
            ],
        ]
    }

    /// Sends the chat message and waits until the delivery engine has finished its jobs.
    static func send(_ harness: Harness, jobs: Int = 1) async throws -> (requestId: String, pushIds: [String]) {
        let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", message)
        #expect(sent.status == 200)
        let requestId = try #require(sent.data["requestId"] as? String)
        #expect(
            try await eventually {
                try harness.store.pushJobLog(appId: "app1", requestId: requestId).filter { $0.finishedAt != nil }.count == jobs
            })
        return (requestId, try harness.store.pushJobs(requestId: requestId).map(\.id))
    }

    static func steps(_ device: [String: Any]) -> [String] {
        (device["steps"] as? [[String: Any]] ?? []).compactMap { $0["step"] as? String }
    }

    static func step(_ device: [String: Any], _ name: String) -> [String: Any]? {
        (device["steps"] as? [[String: Any]] ?? []).first { $0["step"] as? String == name }
    }

    @Test func aPushDeliveredOpenedAndRepliedHasACompleteTrace() async throws {
        let harness = try await Harness.start(sender: .recording) { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        _ = try await harness.makeUser("alice")
        let bob = try await harness.makeUser("bob")
        try await harness.register("0123456789abcdef", platform: "apns_ios_device", session: bob)
        let (requestId, pushIds) = try await Self.send(harness)
        let pushId = try #require(pushIds.first)
        // The payload carries the push id.
        let recorded = try #require(harness.recorder?.jobs.first)
        let payload = try JSONSerialization.jsonObject(with: recorded.payload) as? [String: Any] ?? [:]
        #expect(payload["pushId"] as? String == pushId)

        // The SDK reports the push delivered (by the extension), opened (twice), and a reply.
        let delivered = try await harness.client(
            "POST", "/users/alice/conversation/delivered", session: bob,
            ["messageId": "m1", "pushId": pushId, "deliveredBy": "extension"])
        #expect(delivered.status == 200)
        let opened = try await harness.client("POST", "/notifications/push/v1/pushes/\(pushId)/opened", session: bob)
        #expect(opened.status == 200)
        #expect(opened.data["pushId"] as? String == pushId)
        let openedAt = try #require(opened.data["openedAt"] as? Int)
        let again = try await harness.client("POST", "/notifications/push/v1/pushes/\(pushId)/opened", session: bob)
        #expect(again.status == 200)
        #expect(again.data["openedAt"] as? Int == openedAt)
        let reply = try await harness.client(
            "POST", "/messages", session: bob,
            ["receiver": "alice", "receiverType": "user", "data": ["text": "on my way"], "pushId": pushId])
        #expect(reply.status == 200)
        let replyId = try #require(reply.data["id"] as? String)

        let trace = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/trace", appId: "app1")
        #expect(trace.status == 200)
        #expect(trace.data["requestId"] as? String == requestId)
        let recipients = trace.data["recipients"] as? [[String: Any]] ?? []
        #expect(recipients.map { $0["uid"] as? String } == ["bob"])
        let device = try #require((recipients.first?["devices"] as? [[String: Any]])?.first)
        #expect(device["pushId"] as? String == pushId)
        #expect(device["token"] as? String == "01234567…")
        #expect(device["platform"] as? String == "apns_ios_device")
        #expect(device["stoppedAt"] == nil)
        #expect(Self.steps(device) == ["accepted", "preferences", "sent", "delivered", "opened", "replied"])
        #expect(Self.step(device, "preferences")?["detail"] as? String == "none")
        let sent = Self.step(device, "sent")?["detail"] as? [String: Any] ?? [:]
        #expect(sent["status"] as? Int == 200)
        #expect(sent["apns-id"] as? String == pushId.lowercased())
        #expect(Self.step(device, "delivered")?["detail"] as? String == "extension")
        #expect(Self.step(device, "opened")?["at"] as? Int == openedAt)
        #expect(Self.step(device, "replied")?["detail"] as? String == replyId)
        // No whole token anywhere in the trace.
        #expect(!String(decoding: trace.body, as: UTF8.self).contains("0123456789abcdef"))

        // The funnel counts each push once per stage.
        let metrics = String(decoding: try await harness.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("push_funnel_total{app=\"app1\",stage=\"sent\"} 1"))
        #expect(metrics.contains("push_funnel_total{app=\"app1\",stage=\"delivered\"} 1"))
        #expect(metrics.contains("push_funnel_total{app=\"app1\",stage=\"opened\"} 1"))
        #expect(metrics.contains("push_delivery_delay_seconds_count{app=\"app1\"} 1"))
        #expect(metrics.contains("push_delivery_delay_seconds{app=\"app1\",quantile=\"0.5\"}"))
    }

    @Test func aFailedAndAnExpiredPushSayWhereAndWhy() async throws {
        let harness = try await Harness.start(
            sender: .recording, configure: { $0.rateLimitPerMinute = 0 },
            outcome: { job in
                job.token.hasPrefix("dead") ? .tokenInvalid(reason: "Unregistered") : .expired(reason: "past its apns-expiration")
            })
        try await harness.makeApp()
        _ = try await harness.makeUser("alice")
        let bob = try await harness.makeUser("bob")
        try await harness.register("dead0000beef", platform: "apns_ios_device", session: bob)
        try await harness.register("late0000beef", platform: "fcm_ios", session: bob)
        let (requestId, _) = try await Self.send(harness, jobs: 2)
        let trace = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/trace", appId: "app1")
        let devices = (trace.data["recipients"] as? [[String: Any]])?.first?["devices"] as? [[String: Any]] ?? []
        let dead = try #require(devices.first { $0["token"] as? String == "dead0000…" })
        #expect(dead["stoppedAt"] as? [String: String] == ["step": "sent", "reason": "Unregistered"])
        #expect((Self.step(dead, "sent")?["detail"] as? [String: Any])?["reason"] as? String == "Unregistered")
        let late = try #require(devices.first { $0["token"] as? String == "late0000…" })
        let stopped = late["stoppedAt"] as? [String: String] ?? [:]
        #expect(stopped["step"] == "sent")
        #expect(stopped["reason"]?.hasPrefix("expired") == true)
        #expect(Self.steps(late) == ["accepted", "preferences"])
    }

    @Test func unknownRequestsAndPushesAreNotFound() async throws {
        let harness = try await Harness.start(sender: .recording) { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        try await harness.makeApp("app2")
        _ = try await harness.makeUser("alice")
        let bob = try await harness.makeUser("bob")
        let carol = try await harness.makeUser("carol")
        try await harness.register("0123456789abcdef", platform: "apns_ios_device", session: bob)
        let (requestId, pushIds) = try await Self.send(harness)
        let pushId = try #require(pushIds.first)

        let unknown = try await harness.admin("GET", "/notifications/push/v1/send/no-such-request/trace", appId: "app1")
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "ERR_NOT_FOUND")
        // Another app's admin cannot read the trace.
        #expect(try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/trace", appId: "app2").status == 404)
        // Opened: an unknown push, or another user's, is not found and not recorded.
        #expect(try await harness.client("POST", "/notifications/push/v1/pushes/nope/opened", session: bob).status == 404)
        #expect(try await harness.client("POST", "/notifications/push/v1/pushes/\(pushId)/opened", session: carol).status == 404)
        #expect(try harness.store.pushEvents(appId: "app1", requestId: requestId).isEmpty)
        // A receipt with a bad deliveredBy is refused.
        let bad = try await harness.client(
            "POST", "/users/alice/conversation/delivered", session: bob, ["messageId": "m1", "pushId": pushId, "deliveredBy": "watch"])
        #expect(bad.status == 400)
    }
}
