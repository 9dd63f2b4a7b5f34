import Foundation
import Glibc
import PushCore
import PushService
import Testing

/// What one hostile user, client or app could do to the others (issue 23), each test the attack
/// as it was tried against the service: none of them may stall, delay or fake anything for
/// anyone else. In the heavy group of the test command (Server/Scripts/ci.sh): one of them
/// measures a delay.
@Suite struct HostileClientTests {
    /// A user of the app who is not in a call sends "rejected" for it five times: the caller
    /// gets nothing, and the user gets 403 each time.
    @Test func aUserOutsideACallCannotDeclineIt() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp()
        let alice = try await harness.makeUser("alice")
        let bob = try await harness.makeUser("bob")
        let mallory = try await harness.makeUser("mallory")
        try await harness.register("alice-voip", platform: "apns_ios_voip", session: alice)
        try await harness.register("bob-voip", platform: "apns_ios_voip", session: bob)
        let call: [String: Any] = [
            "type": "call", "recipients": [["uid": "bob"]],
            "call": [
                "sessionId": "call-hostile-1", "callAction": "initiated", "callType": "audio", "sender": ["uid": "alice"],
                "receiver": ["uid": "bob"], "receiverType": "user", "sentAt": Int64(Date().timeIntervalSince1970 * 1000),
            ] as [String: Any],
        ]
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", call).status == 200)

        for _ in 0..<5 {
            let faked = try await harness.client("PUT", "/calls/call-hostile-1", session: mallory, ["status": "rejected"])
            #expect(faked.status == 403)
            #expect(faked.errorCode == "ERR_NOT_CALL_RECIPIENT")
        }
        #expect(try harness.store.allPushJobs().filter { $0.token == "alice-voip" }.isEmpty, "no push reached the caller")
        #expect(try harness.store.pendingWebhookJobCount() == 0)
        // The callee's own decline still reaches the caller.
        #expect(try await harness.client("PUT", "/calls/call-hostile-1", session: bob, ["status": "rejected"]).status == 200)
        #expect(try harness.store.allPushJobs().filter { $0.token == "alice-voip" }.count == 1)
    }

    /// A webhook receiver that accepts connections and never answers: with HTTP/1.1 every post
    /// in flight holds a connection of its own, so `accepted` counts the posts it holds.
    final class SilentReceiver: @unchecked Sendable {
        // @unchecked: `listener` is set in init; `connections` is behind its lock.
        private let listener: Int32
        private let connections = Locked<[Int32]>([])
        let port: Int

        init() throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
                }
            }
            guard listener >= 0, bound, listen(listener, 128) == 0 else { throw RawHTTP.Failure.noResponse }
            self.listener = listener
            port = Int(UInt16(bigEndian: address.sin_port))
            let connections = self.connections
            Thread.detachNewThread {
                while true {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { return }  // the listener was closed
                    connections.withLock { $0.append(connection) }
                }
            }
        }

        var url: String { "http://127.0.0.1:\(port)/hook" }
        var accepted: Int { connections.withLock { $0.count } }

        /// Closes the listener and every connection.
        func close() {
            shutdown(listener, Int32(SHUT_RDWR))
            _ = Glibc.close(listener)
            for connection in connections.withLock({ $0 }) { _ = Glibc.close(connection) }
        }
    }

    /// App B's receiver hangs with a backlog of B's events; app A's event is posted within a
    /// second (it waited for B's posts to time out: 29.5 s).
    @Test func aHangingWebhookOfOneAppDoesNotDelayAnother() async throws {
        let hanging = try SilentReceiver()
        let fast = try WebhookTests.Receiver(failures: 0)
        defer { hanging.close() }
        let harness = try await Harness.start { $0.webhookTimeout = 30 }
        try await harness.makeApp("app-a", webhookURL: fast.url)
        try await harness.makeApp("app-b", webhookURL: hanging.url)
        let alice = try await harness.makeUser("alice", appId: "app-a")
        let bob = try await harness.makeUser("bob", appId: "app-b")
        for n in 0..<20 {
            let receipt = try await harness.client("POST", "/users/carol/conversation/delivered", session: bob, ["messageId": "b-\(n)"])
            #expect(receipt.status == 200)
        }
        // B's receiver holds as many posts as B may have in flight; the rest of B's events wait.
        let concurrency = ServiceConfiguration().webhookConcurrency
        #expect(await Harness.eventually { hanging.accepted >= concurrency })

        let sent = Date()
        #expect(try await harness.client("POST", "/users/dave/conversation/delivered", session: alice, ["messageId": "a-1"]).status == 200)
        #expect(await Harness.eventually { fast.succeeded.count == 1 })
        let delay = try #require(fast.succeeded.first).at.timeIntervalSince(sent)
        #expect(delay < 1, "app A's event waited \(delay) s behind app B's hanging receiver")
        #expect(hanging.accepted == concurrency, "B never has more than its share in flight")
    }
}
