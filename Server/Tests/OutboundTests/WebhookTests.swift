import Dispatch
import Foundation
import HTTPServer
import PushCore
import PushCrypto
import PushService
import PushStore
import PushTestSupport
import Testing

/// Events forwarded to the operator's webhook: signed, retried with back-off, never dropped.
@Suite struct WebhookTests {
    /// The admin API accepts `HTTP://` (schemes are case-insensitive); the dispatcher posts to it.
    @Test func anUppercaseSchemeIsPostedTo() async throws {
        let receiver = try WebhookReceiver(failures: 0)
        let harness = try await Harness.start()
        try await harness.makeApp(webhookURL: receiver.url.replacingOccurrences(of: "http://", with: "HTTP://"))
        let alice = try await harness.makeUser("alice")
        let receipt = try await harness.client("POST", "/users/bob/conversation/delivered", session: alice, ["messageId": "7"])
        #expect(receipt.status == 200)
        #expect(await eventually { receiver.succeeded.count == 1 })
    }

    @Test func failingWebhookIsRetriedWithBackoffAndSigned() async throws {
        // Given a webhook that fails twice
        let receiver = try WebhookReceiver(failures: 2)
        let harness = try await Harness.start {
            $0.webhookRetryBase = 0.3
            $0.webhookRetryMax = 5
        }
        try await harness.makeApp(webhookURL: receiver.url)
        _ = try await harness.admin("PUT", "/apps/app1", ["webhookSecret": "s3cret-for-tests"])
        let alice = try await harness.makeUser("alice")
        // When a quick reply comes in
        let reply = try await harness.client(
            "POST", "/messages", session: alice,
            ["receiver": "bob", "receiverType": "user", "category": "message", "type": "text", "data": ["text": "On my way"]])
        #expect(reply.status == 200)
        // Then it arrives on the third attempt, signed, after growing delays
        #expect(await eventually { receiver.succeeded.count == 1 })
        let all = receiver.all
        #expect(all.map(\.status) == [500, 500, 200])
        let delivery = try #require(receiver.succeeded.first)
        #expect(delivery.headers["x-push-attempt"] == "3")
        #expect(delivery.headers["x-push-event"] == "message.quickReply")
        let signature = try #require(delivery.headers["x-push-signature"])
        #expect(WebhookSignature.verify(header: signature, secret: Data("s3cret-for-tests".utf8), body: delivery.body))
        #expect(!WebhookSignature.verify(header: signature, secret: Data("wrong".utf8), body: delivery.body))
        let event = try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any] ?? [:]
        #expect(event["event"] as? String == "message.quickReply")
        #expect(event["uid"] as? String == "alice")
        #expect((event["data"] as? [String: Any])?["receiver"] as? String == "bob")
        // Back-off: 0.3 s, then 0.6 s (±10 %); never sooner.
        #expect(all[1].at.timeIntervalSince(all[0].at) >= 0.27)
        #expect(all[2].at.timeIntervalSince(all[1].at) >= 0.54)
        #expect(await eventually { (try? harness.store.pendingWebhookJobCount()) == 0 })
        // Secrets never appear in what the service returns for the app.
        #expect(!String(decoding: try await harness.admin("GET", "/apps/app1").body, as: UTF8.self).contains("s3cret"))
    }

    @Test func eventsWaitForAWebhookURLInsteadOfBeingDropped() async throws {
        let receiver = try WebhookReceiver(failures: 0)
        let log = RecordingLogHandler()
        let harness = try await Harness.start(logs: log)
        try await harness.makeApp()
        let bob = try await harness.makeUser("bob")
        _ = try await harness.client("POST", "/users/alice/conversation/delivered", session: bob, ["messageId": "m-1"])
        // a call pushed to bob (only a recipient may answer it) that rang out
        try harness.store.recordCall(
            CallRecord(
                appId: "app1", sessionId: "s-1", callerUid: "alice", details: Data("{}".utf8), createdAt: Date(), recipients: ["bob"]))
        #expect(try await harness.client("PUT", "/calls/s-1", session: bob, ["status": "unanswered"]).status == 200)
        // Wait until the dispatcher has tried both jobs without a URL: they stay queued
        #expect(
            await eventually {
                log.records(containing: "no webhook URL configured").count >= 2
            })
        #expect(try harness.store.pendingWebhookJobCount() == 2)
        _ = try await harness.admin("PUT", "/apps/app1", ["webhookUrl": receiver.url])
        #expect(await eventually { receiver.succeeded.count == 2 })
        let events = Set(receiver.succeeded.compactMap { $0.headers["x-push-event"] })
        #expect(events == ["message.delivered", "call.unanswered"])
    }

    @Test func campaignReceiptsAreIdempotent() async throws {
        let receiver = try WebhookReceiver(failures: 0)
        let harness = try await Harness.start()
        try await harness.makeApp(webhookURL: receiver.url)
        let bob = try await harness.makeUser("bob")
        for _ in 0..<3 {
            #expect(try await harness.client("PUT", "/campaigns/push-notifications/ann-1/clicked", session: bob).status == 200)
        }
        #expect(try await harness.client("PUT", "/campaigns/push-notifications/ann-1/delivered", session: bob).status == 200)
        #expect(await eventually { receiver.succeeded.count == 2 })
        // Every queued event has been delivered (none waiting or in flight): nothing more can come
        #expect(await eventually { (try? harness.store.pendingWebhookJobCount()) == 0 })
        #expect(receiver.all.count == 2)
    }

    /// A post the receiver never answers is ended by `stop()`, which returns only after its
    /// job is back in the outbox as pending: nothing stays leased (for a whole lease, 35 s by
    /// default) once the service has stopped, so a migration or the next run can take it at once.
    @Test func stopReturnsWithThePostInFlightRecorded() async throws {
        let arrived = Locked(0)
        let release = DispatchSemaphore(value: 0)
        let receiver = try HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threads: 1), tooLarge: HTTPResponse(status: 413)
        ) { _ in
            arrived.withLock { $0 += 1 }
            release.wait()
            return HTTPResponse(status: 200)
        }
        defer {
            release.signal()
            receiver.stop()
        }
        let harness = try await Harness.start { $0.webhookTimeout = 60 }
        try await harness.makeApp(webhookURL: "http://127.0.0.1:\(receiver.port)/hook")
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.client("POST", "/users/alice/conversation/delivered", session: bob, ["messageId": "m-1"]).status == 200)
        #expect(await eventually { arrived.withLock { $0 } == 1 })

        harness.app.stop()
        // Read through a store of its own: stop() closed the service's (on PostgreSQL).
        let store = try harness.database.open()
        // Pending with a back-off under a second, not leased for 185 s: claimable 5 s from now.
        let claimable = try store.claimWebhookJobs(limit: 10, lease: 1, now: Date().addingTimeInterval(5))
        #expect(claimable.map(\.event) == ["message.delivered"], "the job in flight was put back as pending by stop()")
    }

    @Test func backoffGrowsAndIsCapped() {
        // The webhook schedule is the delivery engine's RetryPolicy (one back-off type).
        let policy = ServiceConfiguration().webhookRetry
        let delays = (1...12).map { policy.delay(attempt: $0) }
        #expect(delays[0] >= 1 && delays[0] < 1.2)
        #expect(delays[3] >= 8 && delays[3] < 9.6)
        #expect(delays.allSatisfy { $0 <= 360 })
        #expect(delays[11] >= 300)
    }
}
