import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// Notification preferences: the client and admin routes, their validation, and the send path
/// (mutes, group levels with mentions, quiet hours in the user's zone, calls), with the rule
/// each push got in the delivery log. The service's clock is the test's, so time of day and
/// mute expiry are exact; runs on SQLite, and on PostgreSQL with `PUSH_TEST_DATABASE_URL`.
@Suite struct PreferencesTests {
    /// The API clock of a test.
    final class TestClock: Sendable {
        private let value: Locked<Date>
        init(_ date: Date) { value = Locked(date) }
        var now: Date { value.withLock { $0 } }
        func set(_ date: Date) { value.withLock { $0 = date } }
    }

    /// 2026-01-15 00:00 UTC.
    static let dayUTC: TimeInterval = 1_768_435_200

    /// 2026-01-15 `hour`:`minute` in Tokyo (UTC+9 all year, no daylight saving time).
    static func tokyo(_ hour: Int, _ minute: Int, second: Double = 0) -> Date {
        Date(timeIntervalSince1970: dayUTC + Double((hour - 9) * 3600 + minute * 60) + second)
    }

    /// 2026-01-15 `hour`:`minute` in New York (UTC-5 in January).
    static func newYork(_ hour: Int, _ minute: Int) -> Date {
        Date(timeIntervalSince1970: dayUTC + Double((hour + 5) * 3600 + minute * 60))
    }

    let clock = TestClock(Self.tokyo(12, 0))
    let harness: Harness
    let bob: Harness.TestSession
    let carol: Harness.TestSession

    init() async throws {
        try await self.init(sender: .none)
    }

    init(sender: Harness.SenderChoice) async throws {
        let clock = clock
        // The API's clock is set to a past day, so what it stamps (skipped jobs, idempotency
        // records) is "old" to the retention purge, which runs on the real clock: keep it all.
        harness = try await Harness.start(
            sender: sender,
            configure: {
                $0.rateLimitPerMinute = 0
                $0.retentionDays = 0
            }, clock: { clock.now })
        try await harness.makeApp()
        _ = try await harness.makeUser("alice")
        bob = try await harness.makeUser("bob")
        carol = try await harness.makeUser("carol")
        try await register("b0b0000000000000000000000000000000000000000000000000000000000001", platform: "apns_ios_device", bob)
    }

    // MARK: Helpers

    @discardableResult
    func register(
        _ token: String, platform: String, _ session: Harness.TestSession, timezone: String? = "Europe/Paris"
    )
        async throws -> RawHTTP.Response
    {
        var body: [String: Any] = ["fcmToken": token, "platform": platform, "providerId": platform == "fcm_ios" ? "fcm-1" : "apns-1"]
        if let timezone { body["timezone"] = timezone }
        let response = try await harness.client("POST", "/notifications/push/v1/tokens", session: session, body)
        #expect(response.status == 200)
        return response
    }

    static func party(_ uid: String) -> [String: Any] { ["uid": uid, "name": uid.capitalized] }

    static func chat(
        from sender: String = "alice", group: String? = nil, mentions: [String]? = nil, to recipients: [String] = ["bob"]
    )
        -> [String: Any]
    {
        var message: [String: Any] = [
            "id": UUID().uuidString, "sender": party(sender), "receiver": group.map { ["guid": $0, "name": "Team"] } ?? party("bob"),
            "receiverType": group == nil ? "user" : "group", "text": "Hello",
        ]
        if let mentions { message["mentions"] = mentions }
        return ["type": "chat", "recipients": recipients.map { ["uid": $0] }, "message": message, "ttlSeconds": 0]
    }

    static func call(from sender: String = "alice", group: String? = nil) -> [String: Any] {
        [
            "type": "call", "recipients": [["uid": "bob"]], "ttlSeconds": 0,
            "call": [
                "sessionId": "call-" + UUID().uuidString, "callAction": "initiated", "callType": "audio", "sender": party(sender),
                "receiver": group.map { ["guid": $0, "name": "Team"] } ?? party("bob"), "receiverType": group == nil ? "user" : "group",
            ] as [String: Any],
        ]
    }

    /// One job of the delivery log, with its payload.
    struct Pushed {
        var token: String
        var state: String
        var rule: String?
        var aps: [String: Any]
        var pushType: String
    }

    /// Sends and returns Bob's jobs as the delivery log and the jobs route report them.
    func send(_ body: [String: Any], expecting rule: String? = nil) async throws -> [Pushed] {
        let response = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
        #expect(response.status == 200, "\(response.json)")
        let requestId = try #require(response.data["requestId"] as? String)
        let recipient = (response.data["recipients"] as? [[String: Any]])?.first
        #expect(recipient?["rule"] as? String == rule)
        let log = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/log", appId: "app1").dataArray
        let jobs = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/jobs", appId: "app1").dataArray
        #expect(log.count == jobs.count)
        var sentCount = 0
        let pushed = log.map { entry -> Pushed in
            let job = jobs.first { $0["id"] as? String == entry["id"] as? String } ?? [:]
            let payload = job["payload"] as? [String: Any] ?? [:]
            let state = entry["state"] as? String ?? ""
            if state != "skipped" { sentCount += 1 }
            #expect(job["rule"] as? String == entry["rule"] as? String)
            #expect((job["skipped"] as? Bool) == (state == "skipped"))
            return Pushed(
                token: entry["token"] as? String ?? "", state: state, rule: entry["rule"] as? String,
                aps: payload["aps"] as? [String: Any] ?? [:], pushType: (job["headers"] as? [String: Any])?["pushType"] as? String ?? "")
        }
        #expect(response.data["jobs"] as? Int == sentCount)
        return pushed
    }

    func preferences(_ session: Harness.TestSession) async throws -> [String: Any] {
        let response = try await harness.client("GET", "/notifications/push/v1/preferences", session: session)
        #expect(response.status == 200)
        return response.data
    }

    func put(_ path: String, _ body: [String: Any], as session: Harness.TestSession? = nil) async throws -> RawHTTP.Response {
        try await harness.client("PUT", "/notifications/push/v1/preferences" + path, session: session ?? bob, body)
    }

    /// Whether two JSON values are the same (compared as sorted-key JSON).
    func same(_ a: Any?, _ b: Any) -> Bool {
        guard let a, let left = try? JSONSerialization.data(withJSONObject: a, options: [.sortedKeys, .fragmentsAllowed]),
            let right = try? JSONSerialization.data(withJSONObject: b, options: [.sortedKeys, .fragmentsAllowed])
        else { return false }
        return left == right
    }

    func expectQuiet(_ push: Pushed) {
        #expect(push.aps["interruption-level"] as? String == "passive")
        #expect(push.aps["sound"] == nil)
        #expect(push.aps["alert"] != nil)
    }

    func expectAudible(_ push: Pushed) {
        // The app's delivery policy sets the level (UrgencyTests); quiet hours did not.
        #expect(push.aps["interruption-level"] as? String != "passive")
        #expect(push.aps["sound"] as? String == "default")
    }

    // MARK: Mutes

    @Test func mutedUserSkipsChatsFromThatUserOnly() async throws {
        #expect(try await put("/mutes", ["receiverType": "user", "receiver": "alice", "until": NSNull()]).status == 200)
        let muted = try await send(Self.chat(from: "alice"), expecting: "muted")
        #expect(muted.count == 1)
        #expect(muted[0].state == "skipped")
        #expect(muted[0].rule == "muted")
        let other = try await send(Self.chat(from: "carol"))
        #expect(other.map(\.state) == ["pending"])
        #expect(other[0].rule == nil)
        expectAudible(other[0])
        // A group message from the muted user is not a 1:1 conversation with them.
        #expect(try await send(Self.chat(from: "alice", group: "team")).map(\.state) == ["pending"])
    }

    @Test func muteExpiresAtItsUntilTime() async throws {
        let until = Self.tokyo(13, 0)
        let untilMs = Int64(until.timeIntervalSince1970 * 1000)
        let answer = try await put("/mutes", ["receiverType": "user", "receiver": "alice", "until": untilMs])
        let listed = try #require(answer.data["mutes"] as? [[String: Any]])
        #expect(listed.count == 1)
        #expect((listed.first?["until"] as? NSNumber)?.int64Value == untilMs)

        clock.set(until.addingTimeInterval(-0.001))
        #expect(try await send(Self.chat(), expecting: "muted").map(\.state) == ["skipped"])
        #expect((try await preferences(bob)["mutes"] as? [[String: Any]])?.count == 1)

        clock.set(until)
        #expect(try await send(Self.chat()).map(\.state) == ["pending"])
        // Expired mutes are not listed.
        #expect((try await preferences(bob)["mutes"] as? [[String: Any]])?.isEmpty == true)
    }

    @Test func mutedGroupSkipsItsChatsButCallsStillRing() async throws {
        try await register("b0b00000000000000000000000000000000000000000000000000000000000ff", platform: "apns_ios_voip", bob)
        #expect(try await put("/mutes", ["receiverType": "group", "receiver": "team"]).status == 200)
        #expect(try await send(Self.chat(group: "team"), expecting: "muted").map(\.state) == ["skipped"])
        #expect(try await send(Self.chat(group: "other")).map(\.state) == ["pending"])
        #expect(try await send(Self.chat(from: "alice")).map(\.state) == ["pending"])
        let call = try await send(Self.call(group: "team"))
        #expect(call.map(\.state) == ["pending"])
        #expect(call.map(\.pushType) == ["voip"])
    }

    @Test func unmuteRestoresPushes() async throws {
        #expect(try await put("/mutes", ["receiverType": "user", "receiver": "alice", "until": NSNull()]).status == 200)
        #expect(try await send(Self.chat(), expecting: "muted").map(\.state) == ["skipped"])
        let answer = try await harness.client("DELETE", "/notifications/push/v1/preferences/mutes/user/alice", session: bob)
        #expect(answer.status == 200)
        #expect((answer.data["mutes"] as? [[String: Any]])?.isEmpty == true)
        #expect(try await send(Self.chat()).map(\.state) == ["pending"])
    }

    // MARK: Group levels

    @Test func groupLevels() async throws {
        #expect(try await put("/groups/team", ["level": "none"]).status == 200)
        #expect(try await send(Self.chat(group: "team", mentions: ["bob"]), expecting: "group-none").map(\.state) == ["skipped"])
        #expect(try await send(Self.chat(group: "other")).map(\.state) == ["pending"])

        #expect(try await put("/groups/team", ["level": "mentions"]).status == 200)
        let unmentioned = try await send(Self.chat(group: "team", mentions: ["carol"]), expecting: "group-mentions-only")
        #expect(unmentioned.map(\.state) == ["skipped"])
        #expect(unmentioned.map(\.rule) == ["group-mentions-only"])
        #expect(try await send(Self.chat(group: "team"), expecting: "group-mentions-only").map(\.state) == ["skipped"])
        let mentioned = try await send(Self.chat(group: "team", mentions: ["carol", "bob"]))
        #expect(mentioned.map(\.state) == ["pending"])
        #expect(mentioned.map(\.rule) == [nil])
        // Levels are about groups: a 1:1 message is not filtered.
        #expect(try await send(Self.chat()).map(\.state) == ["pending"])

        let all = try await put("/groups/team", ["level": "all"])
        #expect((all.data["groups"] as? [[String: Any]])?.first?["level"] as? String == "all")
        #expect(try await send(Self.chat(group: "team")).map(\.state) == ["pending"])
    }

    @Test func mentionsOnlyIsPerRecipient() async throws {
        try await register("cccc000000000000000000000000000000000000000000000000000000000001", platform: "apns_ios_device", carol)
        #expect(try await put("/groups/team", ["level": "mentions"]).status == 200)
        let response = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.chat(group: "team", mentions: ["carol"], to: ["bob", "carol"]))
        let recipients = try #require(response.data["recipients"] as? [[String: Any]])
        #expect(recipients.map { $0["jobs"] as? Int } == [0, 1])
        #expect(recipients[0]["rule"] as? String == "group-mentions-only")
        #expect(recipients[1]["rule"] == nil)
    }

    // MARK: Quiet hours

    @Test func quietHoursAcrossMidnightInTokyo() async throws {
        let answer = try await put("/quiet-hours", ["start": "22:00", "end": "07:00", "includeCalls": false, "timezone": "Asia/Tokyo"])
        #expect(answer.status == 200)
        #expect(
            same(answer.data["quietHours"], ["start": "22:00", "end": "07:00", "includeCalls": false, "timezone": "Asia/Tokyo"]))
        #expect(answer.data["timezone"] as? String == "Asia/Tokyo")
        let cases: [(Date, Bool)] = [
            (Self.tokyo(21, 59, second: 59.9), false), (Self.tokyo(22, 0), true), (Self.tokyo(23, 59, second: 59), true),
            (Self.tokyo(24, 0), true), (Self.tokyo(6, 59, second: 59.9), true), (Self.tokyo(7, 0), false), (Self.tokyo(12, 0), false),
        ]
        for (time, quiet) in cases {
            clock.set(time)
            let pushed = try await send(Self.chat(), expecting: quiet ? "quiet-hours" : nil)
            #expect(pushed.map(\.state) == ["pending"], "\(time)")
            if quiet {
                #expect(pushed[0].rule == "quiet-hours")
                expectQuiet(pushed[0])
            } else {
                #expect(pushed[0].rule == nil)
                expectAudible(pushed[0])
            }
        }
    }

    @Test func quietHoursWithinADay() async throws {
        #expect(try await put("/quiet-hours", ["start": "09:00", "end": "17:30", "timezone": "Asia/Tokyo"]).status == 200)
        for (time, quiet) in [
            (Self.tokyo(8, 59), false), (Self.tokyo(9, 0), true), (Self.tokyo(17, 29), true), (Self.tokyo(17, 30), false),
        ] {
            clock.set(time)
            let pushed = try await send(Self.chat(), expecting: quiet ? "quiet-hours" : nil)
            #expect(pushed.map(\.rule) == [quiet ? "quiet-hours" : nil], "\(time)")
        }
        // Deleted: loud again.
        clock.set(Self.tokyo(10, 0))
        let cleared = try await harness.client("DELETE", "/notifications/push/v1/preferences/quiet-hours", session: bob)
        #expect(cleared.data["quietHours"] is NSNull)
        expectAudible(try await send(Self.chat())[0])
    }

    @Test func quietHoursUseTheZoneOfTheLatestRegistration() async throws {
        // Bob registered in Paris first; his latest registration is from New York.
        try await register(
            "b0b0000000000000000000000000000000000000000000000000000000000002", platform: "apns_ios_device", bob,
            timezone: "America/New_York")
        let answer = try await put("/quiet-hours", ["start": "22:00", "end": "06:00"])
        #expect((answer.data["quietHours"] as? [String: Any])?["timezone"] as? String == "America/New_York")
        #expect(answer.data["timezone"] as? String == "America/New_York")
        // 23:00 in New York is 05:00 in Paris: quiet either way; 21:00 in New York is 03:00 in Paris.
        clock.set(Self.newYork(21, 0))
        #expect(try await send(Self.chat()).map(\.rule) == [nil, nil])
        clock.set(Self.newYork(22, 0))
        let quiet = try await send(Self.chat(), expecting: "quiet-hours")
        #expect(quiet.map(\.rule) == ["quiet-hours", "quiet-hours"])
        quiet.forEach(expectQuiet)
        clock.set(Self.newYork(6, 0))
        #expect(try await send(Self.chat()).map(\.rule) == [nil, nil])

        // Registering again from Tokyo moves the window: 22:00 in New York is 12:00 in Tokyo.
        try await register(
            "b0b0000000000000000000000000000000000000000000000000000000000001", platform: "apns_ios_device", bob,
            timezone: "Asia/Tokyo")
        #expect(try await preferences(bob)["timezone"] as? String == "Asia/Tokyo")
        clock.set(Self.newYork(22, 0))
        #expect(try await send(Self.chat()).map(\.rule) == [nil, nil])
        // An explicit zone wins over the registrations'.
        #expect(try await put("/quiet-hours", ["start": "22:00", "end": "06:00", "timezone": "America/New_York"]).status == 200)
        #expect(try await send(Self.chat(), expecting: "quiet-hours").map(\.rule) == ["quiet-hours", "quiet-hours"])
    }

    @Test func mutesWinOverQuietHours() async throws {
        #expect(try await put("/quiet-hours", ["start": "00:00", "end": "23:59", "timezone": "Asia/Tokyo"]).status == 200)
        #expect(try await put("/mutes", ["receiverType": "user", "receiver": "alice"]).status == 200)
        #expect(try await send(Self.chat(), expecting: "muted").map(\.rule) == ["muted"])
    }

    @Test func callsRingDuringQuietHoursUnlessIncluded() async throws {
        try await register("b0b00000000000000000000000000000000000000000000000000000000000ff", platform: "apns_ios_voip", bob)
        clock.set(Self.tokyo(23, 0))
        #expect(try await put("/quiet-hours", ["start": "22:00", "end": "07:00", "timezone": "Asia/Tokyo"]).status == 200)
        let ringing = try await send(Self.call())
        #expect(ringing.map(\.pushType) == ["voip"])
        #expect(ringing.map(\.state) == ["pending"])
        #expect(ringing.map(\.rule) == [nil])

        #expect(
            try await put("/quiet-hours", ["start": "22:00", "end": "07:00", "includeCalls": true, "timezone": "Asia/Tokyo"]).status == 200)
        let quiet = try await send(Self.call(), expecting: "quiet-hours-calls")
        let alert = try #require(quiet.first { $0.pushType == "alert" })
        #expect(alert.state == "pending")
        #expect(alert.rule == "quiet-hours-calls")
        expectQuiet(alert)
        let voip = try #require(quiet.first { $0.pushType == "voip" })
        #expect(voip.state == "skipped")
        #expect(voip.rule == "quiet-hours-calls")

        // Outside the window the call rings again.
        clock.set(Self.tokyo(7, 0))
        #expect(try await send(Self.call()).map(\.pushType) == ["voip"])
        // Campaigns are not chat: never quieted.
        clock.set(Self.tokyo(23, 0))
        let campaign: [String: Any] = [
            "type": "campaign", "recipients": [["uid": "bob"]], "ttlSeconds": 0,
            "campaign": ["id": "c1", "campaignId": "camp", "title": "News", "body": "Hi"],
        ]
        expectAudible(try await send(campaign)[0])
    }

    // MARK: Routes

    @Test func adminAndClientRoutesAgree() async throws {
        let admin = "/users/bob/push-preferences"
        let putAdmin = try await harness.admin("PUT", admin + "/groups/team", appId: "app1", ["level": "mentions"])
        #expect(putAdmin.status == 200)
        #expect(same(try await preferences(bob), putAdmin.data))
        _ = try await harness.admin(
            "PUT", admin + "/mutes", appId: "app1", ["receiverType": "group", "receiver": "team", "until": NSNull()])
        _ = try await put("/quiet-hours", ["start": "23:15", "end": "06:45", "includeCalls": true])
        _ = try await put("/mutes", ["receiverType": "user", "receiver": "carol", "until": 1_800_000_000_000])
        let viaAdmin = try await harness.admin("GET", admin, appId: "app1")
        let viaClient = try await preferences(bob)
        #expect(same(viaAdmin.data, viaClient))
        #expect(
            same(
                viaClient["mutes"],
                [
                    ["receiverType": "group", "receiver": "team", "until": NSNull()],
                    ["receiverType": "user", "receiver": "carol", "until": 1_800_000_000_000],
                ]))
        #expect(same(viaClient["groups"], [["guid": "team", "level": "mentions"]]))
        #expect(same(viaClient["quietHours"], ["start": "23:15", "end": "06:45", "includeCalls": true, "timezone": "Europe/Paris"]))
        // Admin deletes what the client set, and the client sees it.
        _ = try await harness.admin("DELETE", admin + "/mutes/user/carol", appId: "app1")
        _ = try await harness.admin("DELETE", admin + "/quiet-hours", appId: "app1")
        let after = try await preferences(bob)
        #expect((after["mutes"] as? [[String: Any]])?.count == 1)
        #expect(after["quietHours"] is NSNull)
        // Another user's preferences are their own.
        let carols = try await preferences(carol)
        #expect((carols["mutes"] as? [Any])?.isEmpty == true)
        #expect((carols["groups"] as? [Any])?.isEmpty == true)
        #expect(carols["timezone"] is NSNull)
        // Deleting the user deletes their preferences.
        #expect(try await harness.admin("DELETE", "/users/bob", appId: "app1").status == 200)
        #expect(try harness.store.preferences(appId: "app1", uid: "bob") == PushPreferences())
    }

    @Test(
        arguments: [
            ("/mutes", ["receiverType": "channel", "receiver": "alice"], "receiverType"),
            ("/mutes", ["receiverType": "user"], "receiver"),
            ("/mutes", ["receiverType": "user", "receiver": "a/b"], "receiver"),
            ("/mutes", ["receiverType": "user", "receiver": "alice", "until": "tomorrow"], "until"),
            ("/mutes", ["receiverType": "user", "receiver": "alice", "until": 1_000], "until"),
            ("/mutes", ["receiverType": "user", "receiver": "alice", "until": -5], "until"),
            ("/groups/team", ["level": "some"], "level"),
            ("/groups/team", [:], "level"),
            ("/quiet-hours", ["start": "24:00", "end": "07:00"], "start"),
            ("/quiet-hours", ["start": "7:00", "end": "07:00"], "start"),
            ("/quiet-hours", ["start": "22:00", "end": "07:60"], "end"),
            ("/quiet-hours", ["start": "22:00"], "end"),
            ("/quiet-hours", ["start": "22:00", "end": "22:00"], "end"),
            ("/quiet-hours", ["start": "22:00", "end": "07:00", "timezone": "Mars/Olympus"], "timezone"),
            ("/quiet-hours", ["start": "22:00", "end": "07:00", "includeCalls": "yes"], "includeCalls"),
        ] as [(String, [String: any Sendable], String)])
    func invalidBodiesAreRejected(path: String, body: [String: any Sendable], field: String) async throws {
        for response in [
            try await put(path, body),
            try await harness.admin("PUT", "/users/bob/push-preferences" + path, appId: "app1", body),
        ] {
            #expect(response.status == 400)
            #expect(response.errorCode == "ERR_BAD_REQUEST")
            #expect(((response.json["error"] as? [String: Any])?["details"] as? [String: Any])?[field] != nil, "\(response.json)")
        }
        // Nothing was stored.
        #expect(try harness.store.preferences(appId: "app1", uid: "bob") == PushPreferences())
    }

    @Test func otherRouteErrors() async throws {
        let badType = try await harness.client("DELETE", "/notifications/push/v1/preferences/mutes/channel/x", session: bob)
        #expect(badType.status == 400)
        #expect(((badType.json["error"] as? [String: Any])?["details"] as? [String: Any])?["receiverType"] != nil)
        let unknownUser = try await harness.admin("GET", "/users/nobody/push-preferences", appId: "app1")
        #expect(unknownUser.status == 404)
        #expect(unknownUser.errorCode == "ERR_UID_NOT_FOUND")
        let noToken = try await harness.json(
            "GET", "/notifications/push/v1/preferences", headers: ["appid": "app1"], nil)
        #expect(noToken.status == 401)
        let noKey = try await harness.json(
            "GET", "/users/bob/push-preferences", headers: ["appid": "app1", "authToken": bob.authToken], nil)
        #expect(noKey.status == 401)
        for mentions in [["bob": 1] as Any, [1] as Any, ["a b"] as Any] {
            var body = Self.chat(group: "team")
            var message = body["message"] as? [String: Any] ?? [:]
            message["mentions"] = mentions
            body["message"] = message
            let response = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
            #expect(response.status == 400)
            #expect(response.errorCode == "ERR_BAD_REQUEST")
            let details = (response.json["error"] as? [String: Any])?["details"] as? [String: Any] ?? [:]
            #expect(details.keys.contains { $0.hasPrefix("message.mentions") }, "\(response.json)")
        }
    }

    // MARK: Delivery

    @Test func skippedJobsAreNeverSent() async throws {
        let recording = try await PreferencesTests(sender: .recording)
        let recorder = try #require(recording.harness.recorder)
        #expect(try await recording.put("/mutes", ["receiverType": "user", "receiver": "alice"]).status == 200)
        // Sent in this order: the skipped job is older than the one that goes out.
        let skipped = try await recording.send(Self.chat(from: "alice"), expecting: "muted")
        let sent = try await recording.send(Self.chat(from: "carol"))
        #expect(skipped.map(\.state) == ["skipped"])
        #expect(await eventually { recorder.jobs.count >= 1 })
        let store = recording.harness.store
        #expect(try await eventually { try store.pushJobCounts().delivered == 1 })
        #expect(recorder.jobs.count == 1)
        #expect(recorder.jobs.allSatisfy { $0.rule == nil && !$0.skipped })
        let counts = try store.pushJobCounts()
        #expect(counts == OutboxCounts(pending: 0, inFlight: 0, delivered: 1, failed: 0, expired: 0))
        #expect(try store.activePushJobCounts().pending == 0)
        #expect(try store.claimPushJobs(limit: 10, lease: 30, now: Date().addingTimeInterval(3600)).isEmpty)
        let all = try store.allPushJobs()
        #expect(all.count == 2)
        #expect(all.filter(\.skipped).map(\.rule) == ["muted"])
        #expect(sent.count == 1)
        let outbox = try await recording.harness.admin("GET", "/admin/outbox")
        #expect((outbox.data["pushJobs"] as? [String: Any])?["pending"] as? Int == 0)
    }
}
