import Foundation
import PushCore
import PushTestSupport
import Testing

/// A webhook whose secret cannot be decrypted (the service restarted with another secret
/// key) is never sent unsigned: the event stays queued and the log says why.
@Suite struct WebhookSecretTests {
    @Test func anUndecryptableSecretKeepsTheEventQueuedInsteadOfSendingItUnsigned() async throws {
        let receiver = try WebhookReceiver(failures: 0)
        let directory = NSTemporaryDirectory() + "push-webhook-secret-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try TestDatabase(directory: directory)
        // Given an app with a webhook and a secret, sealed with one secret key
        do {
            let first = try await Harness.start(database: database) { $0.dataDirectory = directory }
            try await first.makeApp(webhookURL: receiver.url)
        }
        // When the service runs with another secret key and an event comes in
        let log = RecordingLogHandler()
        let second = try await Harness.start(
            database: database,
            configure: {
                $0.dataDirectory = directory
                $0.secretKey = Data(repeating: 9, count: 32).base64EncodedString()
            },
            logs: log)
        let alice = try await second.makeUser("alice")
        let reply = try await second.client(
            "POST", "/messages", session: alice,
            ["receiver": "bob", "receiverType": "user", "category": "message", "type": "text", "data": ["text": "hi"]])
        #expect(reply.status == 200)

        // Then nothing reaches the receiver; the event waits and the log says why
        #expect(await eventually { !log.records(containing: "cannot be decrypted").isEmpty })
        #expect(receiver.all.isEmpty, "no unsigned delivery")
        #expect(try second.store.pendingWebhookJobCount() == 1)
    }
}
