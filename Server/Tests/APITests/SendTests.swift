import Foundation
import PushCore
import PushTestSupport
import Testing

/// The send API: jobs per token with the exact payload (checked against
/// `Contract/payloads/`), headers per token kind, idempotency, and call declines.
@Suite struct SendTests {
    let harness: Harness
    let bob: Harness.TestSession

    init() async throws {
        harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        _ = try await harness.makeUser("alice")
        bob = try await harness.makeUser("bob")
    }

    static var alice: [String: Any] { ["uid": "alice", "name": "Alice", "avatar": "https://example.com/a.png"] }
    static var bobParty: [String: Any] { ["uid": "bob", "name": "Bob", "avatar": "https://example.com/b.png"] }
    static var team: [String: Any] { ["guid": "team", "name": "Team Rocket", "icon": "https://example.com/team.png"] }
    static let sentAt: Int64 = 1_732_900_000_000

    static func chat(_ extra: [String: Any], group: Bool = false) -> [String: Any] {
        var message: [String: Any] = [
            "id": "1042", "sender": alice, "receiver": group ? team : bobParty, "receiverType": group ? "group" : "user",
            "text": "See you at 5", "sentAt": sentAt,
        ]
        message.merge(extra) { $1 }
        return ["type": "chat", "recipients": [["uid": "bob", "badge": 3]], "message": message]
    }

    static func call(_ action: String, group: Bool = false) -> [String: Any] {
        [
            "type": "call", "recipients": [["uid": "bob"]],
            "call": [
                "sessionId": "v1.us.call-7f3a", "callAction": action, "callType": group ? "audio" : "video", "sender": alice,
                "receiver": group ? team : bobParty, "receiverType": group ? "group" : "user", "sentAt": sentAt,
            ] as [String: Any],
        ]
    }

    /// Fixture name, send body, platform of Bob's only token, expected push type.
    static var cases: [(String, [String: Any], String, String)] {
        [
            (
                "chat-user",
                chat([
                    "custom": ["priority": "high"],
                    "message": [
                        "id": "1042", "category": "message", "type": "text", "data": ["text": "See you at 5"], "sentAt": 1_732_900_000,
                    ],
                ]), "apns_ios_device", "alert"
            ),
            ("chat-group", chat([:], group: true), "apns_ios_device", "alert"),
            ("chat-thread-reply", chat(["id": "1043", "parentId": "1040", "text": "Agreed"], group: true), "apns_ios_device", "alert"),
            ("chat-reaction", chat(["id": "1044", "category": "reaction", "reaction": "👍"]), "apns_ios_device", "alert"),
            (
                "chat-group-action", chat(["id": "1045", "category": "action", "text": "Alice added Carol"], group: true),
                "apns_ios_device", "alert"
            ),
            ("chat-user-fcm", chat([:]), "fcm_ios", "alert"),
            // In an app with the Time Sensitive capability (`payloadMatchesContractFixture` sets it).
            (
                "chat-mention", chat(["id": "1046", "text": "@Bob see you at 5", "mentions": ["bob"]], group: true), "apns_ios_device",
                "alert"
            ),
            ("call-initiated", call("initiated"), "apns_ios_voip", "voip"),
            ("call-ongoing", call("ongoing"), "apns_ios_voip", "voip"),
            ("call-unanswered", call("unanswered"), "apns_ios_voip", "voip"),
            ("call-rejected", call("rejected"), "apns_ios_voip", "voip"),
            ("call-busy", call("busy"), "apns_ios_voip", "voip"),
            ("call-cancelled", call("cancelled"), "apns_ios_voip", "voip"),
            ("call-ended", call("ended"), "apns_ios_voip", "voip"),
            ("call-group-initiated", call("initiated", group: true), "apns_ios_voip", "voip"),
            ("call-initiated-alert", call("initiated"), "apns_ios_device", "alert"),
            // To a device that registered German (`languages`), and in an app with `locKeys: true`.
            ("call-initiated-alert-de", call("initiated"), "apns_ios_device", "alert"),
            ("chat-group-loc-keys", chat([:], group: true), "apns_ios_device", "alert"),
            (
                "campaign",
                [
                    "type": "campaign", "recipients": [["uid": "bob", "badge": 1]],
                    "campaign": [
                        "id": "ann-7", "campaignId": "spring-sale", "title": "Spring sale", "body": "50% off stickers this week",
                        "url": "https://example.com/sale", "sentAt": sentAt,
                    ] as [String: Any],
                ],
                "apns_ios_device", "alert"
            ),
        ]
    }

    static let caseCount = 19

    @Test(arguments: 0..<caseCount)
    func payloadMatchesContractFixture(_ index: Int) async throws {
        #expect(Self.cases.count == Self.caseCount)
        let (name, body, platform, pushType) = Self.cases[index]
        // Given Bob has one token of this kind
        if name == "call-initiated-alert-de" {
            let registered = try await harness.client(
                "POST", "/notifications/push/v1/tokens", session: bob,
                ["fcmToken": "b0b0b0b0", "platform": platform, "providerId": "apns-1", "languages": ["de-AT", "en"]])
            #expect(registered.status == 200)
        } else {
            try await harness.register("b0b0b0b0", platform: platform, session: bob)
        }
        if name == "chat-group-loc-keys" {
            #expect(try await harness.admin("PUT", "/apps/app1", ["locKeys": true]).status == 200)
        }
        if name == "chat-mention" {
            let set = try await harness.admin("PUT", "/apps/app1", ["deliveryPolicy": ["timeSensitive": true]])
            #expect(set.status == 200)
        }
        // When the back end sends the event
        let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
        #expect(sent.status == 200)
        #expect(sent.data["jobs"] as? Int == 1)
        // Then one job holds the fixture's payload and the token kind's headers
        let requestId = sent.data["requestId"] as? String ?? ""
        let jobs = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/jobs", appId: "app1").dataArray
        let job = try #require(jobs.first)
        let payload = job["payload"] as? [String: Any] ?? [:]
        // The fixture is the specification: the service must match it, never rewrite it.
        var fixture = try Fixtures.load("payloads", name)
        // `pushId` is the job's id (the fixture shows an example one).
        #expect(fixture["pushId"] is String, "\(name) in Contract/payloads has no pushId")
        #expect(payload["pushId"] as? String == job["id"] as? String)
        fixture["pushId"] = job["id"]
        #expect(NSDictionary(dictionary: payload).isEqual(to: fixture), "\(name) differs from Contract/payloads")
        let headers = job["headers"] as? [String: Any] ?? [:]
        #expect(headers["pushType"] as? String == pushType)
        #expect(headers["priority"] as? Int == 10)
        #expect(headers["topicSuffix"] as? String == (pushType == "voip" ? ".voip" : ""))
        if pushType == "voip" { #expect(headers["expiration"] as? Int == 0) }
        #expect(job["platform"] as? String == platform)
        #expect(job["providerId"] as? String == (platform == "fcm_ios" ? "fcm-1" : "apns-1"))
    }

    @Test func everyPayloadFixtureIsCheckedAgainstTheService() {
        // SendTests checks the send API's payloads; ReadSyncTests checks read.json, MessageActionTests
        // chat-edited.json and chat-deleted.json.
        #expect(Set(Self.cases.map(\.0) + ["read", "read-counted", "chat-edited", "chat-deleted"]) == Set(Fixtures.names(in: "payloads")))
    }

    @Test func everyTokenOfEveryRecipientGetsAJobOfItsKind() async throws {
        let carol = try await harness.makeUser("carol")
        try await harness.register("bob-phone", platform: "apns_ios_device", session: bob)
        try await harness.register("bob-voip", platform: "apns_ios_voip", session: bob)
        try await harness.register("bob-fcm", platform: "fcm_ios", session: bob)
        try await harness.register("carol-phone", platform: "apns_ios_device", session: carol)
        var body = Self.chat([:], group: true)
        body["recipients"] = [["uid": "bob", "badge": 2], ["uid": "carol", "badge": 7], ["uid": "nobody"]]
        let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
        // Chat never goes to VoIP tokens: 2 for Bob, 1 for Carol, none for an unknown uid.
        #expect(sent.data["jobs"] as? Int == 3)
        let jobs = try harness.store.pushJobs(requestId: sent.data["requestId"] as? String ?? "")
        #expect(Set(jobs.map(\.token)) == ["bob-phone", "bob-fcm", "carol-phone"])
        let carolJob = try #require(jobs.first { $0.uid == "carol" })
        let aps = (try JSONSerialization.jsonObject(with: carolJob.payload) as? [String: Any])?["aps"] as? [String: Any]
        #expect(aps?["badge"] as? Int == 7)
        // A call goes to the VoIP token only when the user has one.
        let call = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.call("initiated"))
        let callJobs = try harness.store.pushJobs(requestId: call.data["requestId"] as? String ?? "")
        #expect(callJobs.map(\.token) == ["bob-voip"])
        #expect(callJobs.first?.headers.pushType == .voip)
    }

    @Test func idempotencyKeyStoresJobsOnce() async throws {
        try await harness.register("b0b0", platform: "apns_ios_device", session: bob)
        let first = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.chat([:]), headers: ["Idempotency-Key": "req-1"])
        let second = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.chat([:]), headers: ["Idempotency-Key": "req-1"])
        #expect(first.data["requestId"] as? String == second.data["requestId"] as? String)
        #expect(second.data["replayed"] as? Bool == true)
        #expect(try harness.store.pushJobCounts().pending == 1)
        let reused = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.call("initiated"), headers: ["Idempotency-Key": "req-1"])
        #expect(reused.status == 422)
        #expect(reused.errorCode == "ERR_IDEMPOTENCY_KEY_REUSED")
    }

    @Test(arguments: [
        #"{"type":"fax","recipients":[{"uid":"bob"}]}"#,
        #"{"type":"chat","recipients":[],"message":{"id":"1","sender":{"uid":"a"},"receiver":{"uid":"b"},"text":"x"}}"#,
        #"{"type":"chat","recipients":[{"uid":"bob"}],"message":{"id":"1","sender":{"uid":"a"},"receiver":{"uid":"b"}}}"#,
        #"{"type":"call","recipients":[{"uid":"bob"}],"call":{"sessionId":"s","callAction":"dancing","sender":{"uid":"a"},"receiver":{"uid":"b"}}}"#,
        #"{"type":"chat","recipients":[{"uid":"bob","badge":-1}],"message":{"id":"1","sender":{"uid":"a"},"receiver":{"uid":"b"},"text":"x"}}"#,
        #"{"type":"chat","recipients":[{"uid":"bob"}],"message":{"id":"1","sender":{"uid":"a b"},"receiver":{"uid":"b"},"text":"x"}}"#,
    ])
    func invalidSendsAreBadRequests(_ body: String) async throws {
        let response = try await harness.request(
            "POST", "/notifications/push/v1/send", headers: ["apikey": Harness.adminKey, "appid": "app1"],
            body: Data(body.utf8))
        #expect(response.status == 400)
        #expect(response.errorCode == "ERR_BAD_REQUEST")
    }

    @Test func callDeclineQueuesRejectedPushToTheCaller() async throws {
        let alice = Harness.TestSession(
            appId: "app1", uid: "alice",
            authToken: try await harness.admin("POST", "/users/alice/auth_tokens", appId: "app1").data["authToken"] as? String ?? "")
        try await harness.register("alice-voip", platform: "apns_ios_voip", session: alice)
        try await harness.register("bob-voip", platform: "apns_ios_voip", session: bob)
        _ = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.call("initiated"))
        // When Bob declines
        let declined = try await harness.client("PUT", "/calls/v1.us.call-7f3a", session: bob, ["status": "rejected"])
        #expect(declined.status == 200)
        // Then Alice's VoIP token gets callAction rejected from Bob, and a webhook event waits
        let jobs = try harness.store.allPushJobs().filter { $0.token == "alice-voip" }
        let job = try #require(jobs.first)
        let payload = try JSONSerialization.jsonObject(with: job.payload) as? [String: Any] ?? [:]
        #expect(payload["callAction"] as? String == "rejected")
        #expect(payload["sender"] as? String == "bob")
        #expect(payload["receiver"] as? String == "alice")
        #expect(payload["sessionId"] as? String == "v1.us.call-7f3a")
        #expect(try harness.store.pendingWebhookJobCount() == 1)
    }

    /// `PUT /calls/{sessionId}` answers a call only from a user it was pushed to, once: the
    /// caller, a user of the app outside the call and an unknown session get 403 and send
    /// nothing; the recipient's second answer is a 200 that sends nothing more.
    @Test func onlyTheCallsRecipientsAnswerItAndOnce() async throws {
        let alice = Harness.TestSession(
            appId: "app1", uid: "alice",
            authToken: try await harness.admin("POST", "/users/alice/auth_tokens", appId: "app1").data["authToken"] as? String ?? "")
        let mallory = try await harness.makeUser("mallory")
        try await harness.register("alice-voip", platform: "apns_ios_voip", session: alice)
        try await harness.register("bob-voip", platform: "apns_ios_voip", session: bob)
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.call("initiated")).status == 200)
        let pushesBefore = try harness.store.allPushJobs().count
        for (session, path) in [(mallory, "/calls/v1.us.call-7f3a"), (alice, "/calls/v1.us.call-7f3a"), (bob, "/calls/no-such-call")] {
            let refused = try await harness.client("PUT", path, session: session, ["status": "rejected"])
            #expect(refused.status == 403, "\(session.uid) \(path)")
            #expect(refused.errorCode == "ERR_NOT_CALL_RECIPIENT")
        }
        #expect(try harness.store.allPushJobs().count == pushesBefore, "a refused answer pushes nothing")
        #expect(try harness.store.pendingWebhookJobCount() == 0, "nor notifies the webhook")

        for _ in 0..<3 {
            #expect(try await harness.client("PUT", "/calls/v1.us.call-7f3a", session: bob, ["status": "busy"]).status == 200)
        }
        let toAlice = try harness.store.allPushJobs().filter { $0.token == "alice-voip" }
        #expect(toAlice.count == 1, "one busy push for bob's three answers")
        #expect(try harness.store.pendingWebhookJobCount() == 1)
    }

    /// An initiated call's record is written with its jobs, in one transaction: a call refused
    /// as too large (its jobs made before the store's transaction or, in a large send, inside
    /// it), or sent with an idempotency key another send used, records no call and changes none,
    /// so nobody can answer a call that rang nobody (or take over one that rang).
    @Test func aRefusedCallRecordsNoCallAndChangesNone() async throws {
        try await harness.register("bob-voip", platform: "apns_ios_voip", session: bob)
        let carol = try await harness.makeUser("carol")
        try await harness.register("carol-voip", platform: "apns_ios_voip", session: carol)

        // A call too large for APNs is refused, and leaves no record of its session
        var tooLarge = Self.call("initiated")
        tooLarge["call"] = (tooLarge["call"] as? [String: Any] ?? [:]).merging([
            "sessionId": "refused-call",
            "sender": ["uid": "alice", "avatar": "https://a.example/" + String(repeating: "a", count: 2_000)],
            "receiver": ["uid": "bob", "avatar": "https://b.example/" + String(repeating: "b", count: 1_900)],
        ]) { $1 }
        for madeBefore in [2_048, 0] {
            let harness = try await Harness.start { $0.sendJobsMadeBeforeTheStore = madeBefore }
            try await harness.makeApp()
            let bob = try await harness.makeUser("bob")
            // An alert token: the call's alert push is over APNs' 4,096 bytes.
            try await harness.register("b0b0", platform: "apns_ios_device", session: bob)
            let refused = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", tooLarge)
            #expect(refused.status == 400 && refused.errorCode == "ERR_BAD_REQUEST", "\(madeBefore)")
            #expect(try harness.store.allPushJobs().isEmpty)
            #expect(try harness.store.call(appId: "app1", sessionId: "refused-call") == nil, "\(madeBefore)")
            let answer = try await harness.client("PUT", "/calls/refused-call", session: bob, ["status": "rejected"])
            #expect(answer.status == 403 && answer.errorCode == "ERR_NOT_CALL_RECIPIENT", "\(madeBefore)")
        }

        // A call that rang bob, then the same session "to carol" with a key a chat used: 422,
        // and the call still rings bob only
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.call("initiated")).status == 200)
        let chat = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.chat([:]), headers: ["Idempotency-Key": "used"])
        #expect(chat.status == 200)
        var toCarol = Self.call("initiated")
        toCarol["recipients"] = [["uid": "carol"]]
        let reused = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", toCarol, headers: ["Idempotency-Key": "used"])
        #expect(reused.status == 422)
        #expect(try harness.store.call(appId: "app1", sessionId: "v1.us.call-7f3a")?.recipients == ["bob"])
        let byCarol = try await harness.client("PUT", "/calls/v1.us.call-7f3a", session: carol, ["status": "rejected"])
        #expect(byCarol.status == 403 && byCarol.errorCode == "ERR_NOT_CALL_RECIPIENT")
        #expect(try await harness.client("PUT", "/calls/v1.us.call-7f3a", session: bob, ["status": "rejected"]).status == 200)
    }
}
