import Foundation
import Glibc
import PushMocks
import PushTestSupport
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

    /// Right after a restart, one user registers 40 made-up tokens and gets a chat: APNs
    /// refuses each (`BadDeviceToken`). The breaker stays closed (one user's tokens never open
    /// it), `/healthz` stays 200, the made-up tokens go, and another user's push is delivered at
    /// once. (It opened on the first refusal, `/healthz` answered 503, and the other user's push
    /// waited 4 minutes behind probes that kept picking the made-up tokens.)
    @Test func oneUsersMadeUpTokensCannotStallTheApp() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let fakes = (0..<40).map { String(format: "%064x", 0xbad_0000 + $0) }
        try mock.script(Dictionary(uniqueKeysWithValues: fakes.map { ($0, [["status": 400, "reason": "BadDeviceToken"]]) }))
        let configure: @Sendable (inout ServiceConfiguration) -> Void = { configuration in
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
        }
        func chat(to uid: String, id: String) -> [String: Any] {
            [
                "type": "chat", "recipients": [["uid": uid]],
                "message": ["id": id, "sender": ["uid": "alice"], "receiver": ["uid": uid], "text": "hi"],
            ]
        }
        // Given a provider that delivered to bob, then a restart (a provider not healthy by
        // the clock: its last delivery is older than --breaker-healthy-within)
        let first = try await Harness.start(sender: .delivery, configure: configure)
        _ = try await first.admin("POST", "/apps", ["appId": "app1", "name": "App"])
        #expect(
            try await first.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", MisconfigurationTests.provider(mock))
                .status == 200)
        let bob = try await first.makeUser("bob")
        let mallory = try await first.makeUser("mallory")
        #expect(try await first.register(String(repeating: "b0", count: 32), platform: "apns_ios_device", session: bob).status == 200)
        #expect(try await first.admin("POST", "/notifications/push/v1/send", appId: "app1", chat(to: "bob", id: "m0")).status == 200)
        await MisconfigurationTests.expectDelivered(1, first, mock)
        first.app.stop()
        let directory = first.directory
        let harness = try await Harness.start(sender: .delivery, database: first.database) { configuration in
            configure(&configuration)
            configuration.dataDirectory = directory
            configuration.delivery.breaker.healthyWithin = 0.001
        }

        // When mallory registers 40 made-up tokens and gets a chat
        for token in fakes {
            #expect(try await harness.register(token, platform: "apns_ios_device", session: mallory).status == 200)
        }
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", chat(to: "mallory", id: "m1")).status == 200)
        let store = harness.store
        let settled = await waitWhileProgressing("mallory's pushes", { (try? store.pushJobCounts())?.failed ?? -1 }) { $0 == 40 }
        #expect(settled.done, "\(settled.value) of mallory's 40 jobs failed as dead tokens")

        // Then the service stays healthy, the breaker closed, the made-up tokens are gone
        let health = try await MisconfigurationTests.healthz(harness)
        #expect(health.status == 200 && health.body["misconfiguredProviders"] == nil, "\(health.body)")
        let providers = try await harness.admin("GET", "/admin/providers/health", appId: "app1")
        let apns = (providers.data["providers"] as? [[String: Any]] ?? []).first { $0["providerId"] as? String == "apns-1" }
        #expect(apns?["circuitBreaker"] as? String == "closed")
        #expect(try harness.store.tokens(appId: "app1", uid: "mallory").isEmpty)
        // and bob's next push is delivered at once
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", chat(to: "bob", id: "m2")).status == 200)
        let delivered = await waitWhileProgressing("bob's push", { (try? store.pushJobCounts())?.delivered ?? -1 }) { $0 == 2 }
        #expect(delivered.done && delivered.elapsed < 5, "bob's push: \(delivered.value) delivered after \(delivered.elapsed) s")
    }

    /// App B's APNs answers slowly (12 s) with a backlog of B's pushes; app A's next push is
    /// delivered at once: B holds at most its share (seven eighths) of the engine's sends in
    /// flight. (B's pushes took every slot, and A's waited for B's answers.)
    @Test func aSlowProviderOfOneAppDoesNotDelayAnother() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let slow = (0..<20).map { String(format: "%064x", 0x5_1000 + $0) }
        try mock.script(Dictionary(uniqueKeysWithValues: slow.map { ($0, [["status": 200, "delay_ms": 12_000]]) }))
        let harness = try await Harness.start(sender: .delivery) { configuration in
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
            configuration.deliveryMaxInFlight = 8
            configuration.delivery.apnsConnections = 1  // one connection per provider, opened by its first push
        }
        for app in ["app-a", "app-b"] {
            _ = try await harness.admin("POST", "/apps", ["appId": app, "name": app])
            #expect(
                try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: app, MisconfigurationTests.provider(mock))
                    .status == 200)
        }
        let alice = try await harness.makeUser("alice", appId: "app-a")
        let bert = try await harness.makeUser("bert", appId: "app-b")
        let bob = try await harness.makeUser("bob", appId: "app-b")
        #expect(try await harness.register(String(repeating: "a1", count: 32), platform: "apns_ios_device", session: alice).status == 200)
        #expect(try await harness.register(String(repeating: "be", count: 32), platform: "apns_ios_device", session: bert).status == 200)
        for token in slow { #expect(try await harness.register(token, platform: "apns_ios_device", session: bob).status == 200) }
        func chat(_ app: String, to uid: String, id: String) async throws -> String {
            let body: [String: Any] = [
                "type": "chat", "recipients": [["uid": uid]],
                "message": ["id": id, "sender": ["uid": "carol"], "receiver": ["uid": uid], "text": "hi"],
            ]
            let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: app, body)
            return try #require(sent.data["requestId"] as? String)
        }
        let store = harness.store
        func delivered(_ app: String, _ request: String) async -> ProgressWait<Bool> {
            await waitWhileProgressing(
                "\(app)'s push", { (try? store.pushJobLog(appId: app, requestId: request))?.first?.state == "delivered" }
            ) {
                $0
            }
        }
        // Each app's first push opens its APNs connection (APNs lets one stream through until
        // one is answered)
        #expect(await delivered("app-a", try await chat("app-a", to: "alice", id: "a0")).done)
        #expect(await delivered("app-b", try await chat("app-b", to: "bert", id: "b0")).done)

        // When B's twenty pushes wait for B's slow APNs
        _ = try await chat("app-b", to: "bob", id: "b1")
        let share = 8 - 8 / 8
        let atAPNs = { mock.log(kind: "apns").compactMap { $0["token"] as? String }.filter { slow.contains($0) }.count }
        let held = await waitWhileProgressing("B's pushes at APNs", atAPNs) { $0 >= share }
        #expect(held.done, "\(held.value) of B's pushes reached APNs")

        // Then A's next push is delivered at once, and B holds no more than its share
        let second = await delivered("app-a", try await chat("app-a", to: "alice", id: "a1"))
        #expect(second.done && second.elapsed < 2, "A's push waited \(second.elapsed) s behind B's slow provider")
        #expect(atAPNs() == share, "B never holds more than its share of the sends in flight")
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
        let fast = try WebhookReceiver(failures: 0)
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
        #expect(await eventually { hanging.accepted >= concurrency })

        let sent = Date()
        #expect(try await harness.client("POST", "/users/dave/conversation/delivered", session: alice, ["messageId": "a-1"]).status == 200)
        #expect(await eventually { fast.succeeded.count == 1 })
        let delay = try #require(fast.succeeded.first).at.timeIntervalSince(sent)
        #expect(delay < 1, "app A's event waited \(delay) s behind app B's hanging receiver")
        #expect(hanging.accepted == concurrency, "B never has more than its share in flight")
    }
}
