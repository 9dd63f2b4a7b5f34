import Foundation
import PushTestSupport
import HTTPServer
import PushCore
import PushStore
import Testing

/// `kill -9` of `push-server` while it posts webhooks to a receiver that answers after 50 ms:
/// after a restart every event arrives at least once, the restarted service takes over the
/// dead one's webhook leases at once (the lease is 95 s: three 30 s timeouts and 5 s), and the duplicates the receiver sees
/// (by `X-Push-Event-Id`) are no more than the jobs leased at the kill.
@Suite struct WebhookCrashTests {
    static let adminKey = "webhook-crash-admin-key"
    static let authToken = "dev-user_webhook-crash-token"

    static func start(_ directory: String, _ database: TestDatabase, webhook: String?) async throws -> ServerProcess {
        try await ServerProcess.start(
            [
                "--port", "0", "--data-dir", directory, "--seed-dev", "--sender", "log",
                "--log-level", "error", "--rate-limit", "0", "--poll-interval", "0.01",
                // A long lease (timeout × 3 + 5 s = 95 s): a restart that waited for the
                // dead process's leases to end stands out from one slowed by a loaded machine.
                "--webhook-timeout", "30",
                // The receiver is http://127.0.0.1.
                "--allow-insecure-webhooks",
            ] + (webhook.map { ["--seed-webhook-url", $0] } ?? []) + database.arguments,
            environment: ["PUSH_ADMIN_KEY": adminKey, "PUSH_SEED_AUTH_TOKEN": authToken])
    }

    @Test func killNineWhilePostingWebhooksLosesNothing() async throws {
        let received = Locked<[String]>([])
        let receiver = try HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threads: 16), tooLarge: HTTPResponse(status: 413)
        ) { request in
            usleep(50_000)  // the receiver's answer time
            received.withLock { $0.append(request.headers["x-push-event-id"] ?? "?") }
            return HTTPResponse(status: 200)
        }
        defer { receiver.stop() }
        let directory = NSTemporaryDirectory() + "push-webhook-crash-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try TestDatabase(directory: directory)
        let url = "http://127.0.0.1:\(receiver.port)/hook"
        let total = 300

        // Given 300 quick replies queued as webhook events, waiting for the app's webhook URL
        // (so that the kill comes mid-run however fast the service posts compared with how fast
        // the test queues)
        let first = try await Self.start(directory, database, webhook: nil)
        let session = ["appid": "dev-app", "authToken": Self.authToken]
        for index in 0..<total {
            let body: [String: Any] = [
                "receiver": "bob", "receiverType": "user", "category": "message", "type": "text", "data": ["text": "r\(index)"],
            ]
            #expect(try await RawHTTP.json(port: first.port, "POST", "/messages", headers: session, body).status == 200)
        }

        // When the URL is set and the service is killed while it posts them
        let update = try await RawHTTP.json(
            port: first.port, "PUT", "/apps/dev-app", headers: ["apikey": Self.adminKey], ["webhookUrl": url])
        #expect(update.status == 200)
        let third = await waitWhileProgressing("a third received", { received.withLock { $0.count } }) { $0 >= total / 3 }
        #expect(third.done, "\(third.value) of \(total) events received")
        first.kill9()
        let store = try database.open()
        let atKill = try store.webhookJobCounts()
        let receivedAtKill = received.withLock { $0.count }
        #expect(receivedAtKill < total, "the kill came mid-run")

        // Then after a restart every event arrives, long before the 95 s lease would end
        let second = try await Self.start(directory, database, webhook: url)
        defer { second.stop() }
        let delivered = await waitWhileProgressing("delivery after the restart", { (try? store.webhookJobCounts().delivered) ?? -1 }) {
            $0 == total
        }
        #expect(delivered.done, "\(delivered.value) of \(total) events delivered")
        #expect(await eventually(timeout: 5) { Set(received.withLock { $0 }).count == total })
        let ids = received.withLock { $0 }
        let duplicates = ids.count - Set(ids).count
        #expect(duplicates <= atKill.leased, "duplicates are bounded by the jobs leased at the kill")
        print(
            "WebhookCrashTests: \(total) events; \(receivedAtKill) received and \(atKill.leased) leased at the kill; duplicates \(duplicates)"
        )
    }
}
