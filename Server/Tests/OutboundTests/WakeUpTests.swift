import Foundation
import PushCore
import PushTestSupport
import Testing

/// Wake-ups, not polls: with the workers' idle poll (`--poll-interval`) at 30 s, a send is
/// delivered, a webhook event posted and a retry sent again within seconds. On SQLite the store
/// reports the jobs it committed; on PostgreSQL its NOTIFY does; the engine wakes itself when a
/// retry it recorded falls due. A time limit is their point: the heavy group.
@Suite struct WakeUpTests {
    /// The idle poll of these tests.
    static let poll = 30.0
    /// Well under the poll: only a wake-up gets there in time.
    static let limit = 10.0
    /// A chat message from alice to bob.
    static var chat: [String: Any] {
        [
            "type": "chat", "recipients": [["uid": "bob", "badge": 3]],
            "message": [
                "id": "1042", "sender": ["uid": "alice", "name": "Alice"], "receiver": ["uid": "bob", "name": "Bob"],
                "receiverType": "user", "text": "See you at 5", "sentAt": 1_732_900_000_000,
            ],
        ]
    }

    static func start(outcome: (@Sendable (PushJob) -> JobOutcome)? = nil, webhookURL: String? = nil) async throws -> Harness {
        let harness = try await Harness.start(
            sender: .recording,
            configure: {
                $0.pollInterval = Self.poll
                $0.rateLimitPerMinute = 0
            }, outcome: outcome)
        try await harness.makeApp(webhookURL: webhookURL)
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register(String(repeating: "b0", count: 32), platform: "apns_ios_device", session: bob).status == 200)
        return harness
    }

    @Test func aSendIsDeliveredWithoutWaitingForThePoll() async throws {
        // Given an idle service whose engine polls every 30 s
        let harness = try await Self.start()
        let recorder = try #require(harness.recorder)
        // When a push is sent
        let started = Date()
        let send = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.chat)
        #expect(send.status == 200)
        // Then it reaches the sender within seconds: the send woke the engine
        let delivered = await eventually(timeout: Self.limit) { recorder.jobs.count == 1 }
        #expect(delivered, "the push waited for the engine's \(Self.poll) s poll")
        #expect(Date().timeIntervalSince(started) < Self.limit)
    }

    @Test func aWebhookEventIsPostedWithoutWaitingForThePoll() async throws {
        // Given an app with a webhook, on a service whose dispatcher polls every 30 s
        let receiver = try WebhookReceiver(failures: 0)
        let harness = try await Self.start(webhookURL: receiver.url)
        let alice = try await harness.makeUser("alice")
        // When an event is queued (a delivered receipt)
        let started = Date()
        let receipt = try await harness.client("POST", "/users/bob/conversation/delivered", session: alice, ["messageId": "7"])
        #expect(receipt.status == 200)
        // Then it is posted within seconds: the queued job woke the dispatcher
        let posted = await eventually(timeout: Self.limit) { receiver.succeeded.count == 1 }
        #expect(posted, "the event waited for the dispatcher's \(Self.poll) s poll")
        #expect(Date().timeIntervalSince(started) < Self.limit)
    }

    @Test func aRetryIsSentWhenItFallsDueNotAtTheNextPoll() async throws {
        // Given a sender that asks for a retry half a second later, once
        let harness = try await Self.start { job in
            job.attempts == 1 ? .retry(notBefore: Date().addingTimeInterval(0.5), reason: "test: try again") : .delivered
        }
        let recorder = try #require(harness.recorder)
        // When a push is sent
        let started = Date()
        let send = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.chat)
        #expect(send.status == 200)
        // Then its second attempt comes within seconds: the engine woke when the retry fell due
        let retried = await eventually(timeout: Self.limit) { recorder.jobs.count == 2 }
        #expect(retried, "the retry waited for the engine's \(Self.poll) s poll")
        #expect(Date().timeIntervalSince(started) < Self.limit)
        #expect(recorder.jobs.map(\.attempts) == [1, 2])
    }
}
