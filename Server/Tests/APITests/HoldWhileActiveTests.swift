import Foundation
import PushCore
import PushMocks
import PushStore
import PushTestSupport
import Testing

/// Quiet when already reading (issue 31 part 2): while Bob reads a conversation on his iPhone
/// (the SDK reports it) or on the web (his app's back end reports it), chat pushes of that
/// conversation to his other devices wait the app's `holdWhileActiveSeconds`; a read on any
/// device during the wait skips them (`read-elsewhere`); calls never wait; activity expires by
/// itself. Built on ``PreferencesTests``'s service (its clock is the test's); runs on SQLite,
/// and on PostgreSQL with `PUSH_TEST_DATABASE_URL`.
@Suite struct HoldWhileActiveTests {
    let base: PreferencesTests
    var harness: Harness { base.harness }
    let ipad: Harness.TestSession
    static let phoneToken = "b0b0000000000000000000000000000000000000000000000000000000000001"
    static let ipadToken = "b0b0000000000000000000000000000000000000000000000000000000000002"

    init() async throws {
        base = try await PreferencesTests()
        // Bob's iPad logs in with an auth token of its own.
        let issued = try await base.harness.admin("POST", "/users/bob/auth_tokens", appId: "app1")
        ipad = Harness.TestSession(appId: "app1", uid: "bob", authToken: try #require(issued.data["authToken"] as? String))
        try await base.register(Self.ipadToken, platform: "apns_ios_device", ipad)
        let set = try await base.harness.admin("PUT", "/apps/app1", ["holdWhileActiveSeconds": 15])
        #expect(set.status == 200 && set.data["holdWhileActiveSeconds"] as? Int == 15, "\(set.json)")
    }

    /// One stored job of a send, by token.
    struct Job {
        var state: String
        var rule: String?
        var notBefore: Date
    }

    func send(_ body: [String: Any]) async throws -> (requestId: String, jobs: [String: Job]) {
        let response = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
        #expect(response.status == 200, "\(response.json)")
        let requestId = try #require(response.data["requestId"] as? String)
        return (requestId, try jobs(requestId))
    }

    func jobs(_ requestId: String) throws -> [String: Job] {
        Dictionary(
            try harness.store.pushJobs(requestId: requestId).map {
                ($0.token, Job(state: $0.skipped ? "skipped" : "pending", rule: $0.rule, notBefore: $0.notBefore))
            }, uniquingKeysWith: { first, _ in first })
    }

    /// The delivery log's state and rule of each job of a send, by token.
    func log(_ requestId: String) async throws -> [String: (state: String, rule: String?)] {
        let entries = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/log", appId: "app1").dataArray
        return Dictionary(
            entries.map { ($0["token"] as? String ?? "", ($0["state"] as? String ?? "", $0["rule"] as? String)) },
            uniquingKeysWith: { first, _ in first })
    }

    func reportFromPhone(_ conversationId: Any, seconds: Int = 60) async throws -> RawHTTP.Response {
        try await harness.client(
            "PUT", "/notifications/push/v1/activity", session: base.bob, ["conversationId": conversationId, "seconds": seconds])
    }

    @Test func whileBobReadsOnThePhoneTheIPadWaitsAndAReadThereCancelsIt() async throws {
        let reported = try await reportFromPhone("alice_user_bob")
        #expect(reported.status == 200, "\(reported.json)")
        let now = base.clock.now
        let sent = try await send(PreferencesTests.chat())
        // The iPad's push waits 15 s; the phone's (the reading device's) does not.
        let ipadJob = try #require(sent.jobs[Self.ipadToken])
        #expect(ipadJob.rule == "held-while-active" && ipadJob.notBefore == now.addingTimeInterval(15))
        let phoneJob = try #require(sent.jobs[Self.phoneToken])
        #expect(phoneJob.rule == nil && phoneJob.notBefore == now)
        // Another conversation is not held.
        let other = try await send(PreferencesTests.chat(from: "carol"))
        #expect(other.jobs.values.allSatisfy { $0.rule == nil && $0.notBefore == now })

        // Bob reads the conversation on the phone: the held push goes no more.
        let read = try await harness.client(
            "POST", "/notifications/push/v1/read", session: base.bob, ["receiverType": "user", "receiver": "alice"])
        #expect(read.status == 200)
        let after = try await log(sent.requestId)
        #expect(after[Self.ipadToken]?.state == "skipped" && after[Self.ipadToken]?.rule == "read-elsewhere")
        #expect(after[Self.phoneToken]?.state == "pending")
        let trace = try await harness.admin("GET", "/notifications/push/v1/send/\(sent.requestId)/trace", appId: "app1").data
        let skipped = (trace["recipients"] as? [[String: Any]])?.first?["skipped"] as? [[String: Any]]
        #expect(skipped?.compactMap { $0["reason"] as? String } == ["read-elsewhere"])
        // Carol's is untouched.
        #expect(try await log(other.requestId).values.allSatisfy { $0.state == "pending" })
    }

    @Test func readOnTheWebEveryDeviceWaitsAndTheBackEndsReadCancels() async throws {
        let reported = try await harness.admin(
            "PUT", "/users/bob/activity", appId: "app1", ["conversationId": "alice_user_bob", "seconds": 120])
        #expect(reported.status == 200, "\(reported.json)")
        #expect(reported.data["conversationId"] as? String == "alice_user_bob")
        let sent = try await send(PreferencesTests.chat())
        #expect(sent.jobs.count == 2 && sent.jobs.values.allSatisfy { $0.rule == "held-while-active" })
        let read = try await harness.admin("POST", "/users/bob/read", appId: "app1", ["receiverType": "user", "receiver": "alice"])
        #expect(read.status == 200)
        #expect(try await log(sent.requestId).values.allSatisfy { $0.state == "skipped" && $0.rule == "read-elsewhere" })
    }

    @Test func aCallNeverWaitsNorDoesAnythingOnceTheActivityEndsOrIsCleared() async throws {
        #expect(try await reportFromPhone("alice_user_bob", seconds: 30).status == 200)
        let now = base.clock.now
        let call = try await send(PreferencesTests.call())
        #expect(call.jobs.values.allSatisfy { $0.rule == nil && $0.notBefore == now })
        // Cleared by the phone (null): nothing waits.
        let cleared = try await reportFromPhone(NSNull())
        #expect(cleared.status == 200 && cleared.data["conversationId"] is NSNull)
        #expect(try await send(PreferencesTests.chat()).jobs.values.allSatisfy { $0.rule == nil })
        // Expired by itself: 30 s after the report, nothing waits either.
        #expect(try await reportFromPhone("alice_user_bob", seconds: 30).status == 200)
        #expect(try await send(PreferencesTests.chat()).jobs[Self.ipadToken]?.rule == "held-while-active")
        base.clock.set(now.addingTimeInterval(30))
        #expect(try await send(PreferencesTests.chat()).jobs.values.allSatisfy { $0.rule == nil })
    }

    @Test func anAppWithoutAHoldNeverWaits() async throws {
        #expect(try await harness.admin("PUT", "/apps/app1", ["holdWhileActiveSeconds": 0]).status == 200)
        #expect(try await reportFromPhone("alice_user_bob").status == 200)
        #expect(try await send(PreferencesTests.chat()).jobs.values.allSatisfy { $0.rule == nil })
    }

    @Test func badReportsAndHoldsAreRefusedNamingTheField() async throws {
        for body in [["seconds": 10], ["conversationId": "alice_user_bob", "seconds": 0], ["conversationId": "a b"]] as [[String: Any]] {
            let refused = try await harness.client("PUT", "/notifications/push/v1/activity", session: base.bob, body)
            #expect(refused.status == 400, "\(body)")
        }
        let long = try await reportFromPhone("alice_user_bob", seconds: 301)
        #expect(((long.json["error"] as? [String: Any])?["details"] as? [String: String])?.keys.first == "seconds")
        let hold = try await harness.admin("PUT", "/apps/app1", ["holdWhileActiveSeconds": 301])
        #expect(((hold.json["error"] as? [String: Any])?["details"] as? [String: String])?.keys.first == "holdWhileActiveSeconds")
        #expect(try await harness.admin("PUT", "/users/nobody/activity", appId: "app1", ["conversationId": "x"]).status == 404)
    }
}

/// A held push goes when its hold ends, through the real delivery engine (real time: the hold
/// is 1 s).
@Suite struct HoldWhileActiveDeliveryTests {
    @Test func aHeldPushIsSentWhenItsHoldEnds() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let harness = try await Harness.start(sender: .delivery) { configuration in
            configuration.rateLimitPerMinute = 0
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
            configuration.delivery.fcmBaseURL = mock.baseURL
        }
        try await harness.addMockProviders(mock)
        _ = try await harness.makeUser("alice")
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register("b0b0ffff", platform: "apns_ios_device", session: bob).status == 200)
        #expect(try await harness.admin("PUT", "/apps/app1", ["holdWhileActiveSeconds": 1]).status == 200)
        #expect(try await harness.admin("PUT", "/users/bob/activity", appId: "app1", ["conversationId": "alice_user_bob"]).status == 200)
        // Taken before the request: the hold counts from when the service accepts the send,
        // which is no sooner, so a slow answer cannot make a push held long enough look early.
        let beforeSend = Date()
        let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", PreferencesTests.chat())
        let requestId = try #require(sent.data["requestId"] as? String)
        // It waits, then goes: its state leaves `pending` no sooner than the hold's end.
        var finished: Date?
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let log = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/log", appId: "app1").dataArray
            if let state = log.first?["state"] as? String, state != "pending", state != "leased" {
                finished = Date()
                #expect(log.first?["rule"] as? String == "held-while-active")
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let end = try #require(finished, "the held push never left pending")
        #expect(end.timeIntervalSince(beforeSend) >= 0.99, "sent before its hold ended")
        #expect(mock.log(kind: "apns").count == 1)
    }
}
