import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// The badge the service counts (issue 30 part 3, docs/design/service-badge.md): `badge: "auto"`
/// per recipient or as the app's default; chat messages count per recipient and conversation,
/// once per message id, never for their sender; a read on any device and a deletion take them
/// away; the read push carries the new total; the admin API reads and resets the counts.
@Suite struct ServiceBadgeTests {
    /// A chat message from `sender` to `recipient` (1:1), with the recipient item's extra keys.
    static func message(
        _ id: String, from sender: String, to recipient: String = "bob", recipientItem: [String: Any] = [:],
        extra: [String: Any] = [:]
    ) -> [String: Any] {
        var message: [String: Any] = [
            "id": id, "sender": ["uid": sender, "name": sender.capitalized], "receiver": ["uid": recipient, "name": recipient.capitalized],
            "text": "Hello from \(sender)", "sentAt": 1_732_900_000_000,
        ]
        message.merge(extra) { $1 }
        return ["type": "chat", "recipients": [["uid": recipient].merging(recipientItem) { $1 }], "message": message]
    }

    /// `aps.badge` and `unreadMessageCount` of each of a send's jobs (they must agree).
    static func badges(_ jobs: [[String: Any]], sourceLocation: SourceLocation = #_sourceLocation) -> [Int?] {
        jobs.map { job in
            let payload = job["payload"] as? [String: Any] ?? [:]
            let aps = payload["aps"] as? [String: Any] ?? [:]
            let badge = aps["badge"] as? Int
            #expect((payload["unreadMessageCount"] as? String) == badge.map(String.init), sourceLocation: sourceLocation)
            return badge
        }
    }

    /// The `conversations` of a badge answer, as `id: unread`.
    static func conversations(_ answer: RawHTTP.Response) -> [String] {
        (answer.data["conversations"] as? [[String: Any]] ?? []).map {
            "\($0["conversationId"] as? String ?? "?"): \($0["unread"] as? Int ?? -1)"
        }
    }

    /// The payloads of the read pushes stored for `uid`, oldest first.
    static func readPushes(_ harness: Harness, uid: String) throws -> [[String: Any]] {
        try harness.store.allPushJobs().filter { $0.kind == .read && $0.uid == uid }.map {
            try JSONSerialization.jsonObject(with: $0.payload) as? [String: Any] ?? [:]
        }
    }

    /// An app with `badge: auto`, Bob on a phone and an iPad, Alice and Carol.
    static func autoApp() async throws -> (Harness, phone: Harness.TestSession, ipad: Harness.TestSession) {
        let harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        let set = try await harness.admin("PUT", "/apps/app1", ["badge": "auto"])
        #expect(set.status == 200 && set.data["badge"] as? String == "auto", "\(set.json)")
        let phone = try await harness.makeUser("bob")
        let issued = try await harness.admin("POST", "/users/bob/auth_tokens", appId: "app1")
        let ipad = Harness.TestSession(appId: "app1", uid: "bob", authToken: try #require(issued.data["authToken"] as? String))
        try await harness.register("aaaa0000phone", platform: "apns_ios_device", session: phone)
        try await harness.register("bbbb0000ipad", platform: "apns_ios_device", session: ipad)
        _ = try await harness.makeUser("alice")
        _ = try await harness.makeUser("carol")
        return (harness, phone, ipad)
    }

    @Test func theBadgeCountsUpAcrossSendersAndDropsWhenOneConversationIsReadOnTheOtherDevice() async throws {
        let (harness, phone, _) = try await Self.autoApp()
        // Alice sends two messages, Carol one: every push to Bob's two devices carries the total.
        var seen: [Int?] = []
        for (id, sender) in [("m1", "alice"), ("m2", "alice"), ("m3", "carol")] {
            let sent = try await harness.send(Self.message(id, from: sender))
            let recipients = sent.data["recipients"] as? [[String: Any]]
            #expect(recipients?.first?["badge"] as? Int == seen.count + 1, "the answer names the badge")
            let badges = Self.badges(try await harness.jobs(of: sent))
            #expect(badges.count == 2 && Set(badges).count == 1)
            seen.append(badges.first ?? nil)
        }
        #expect(seen == [1, 2, 3])

        // Bob reads Alice's conversation on the phone: the iPad's read push carries the new total.
        let read = try await harness.client(
            "POST", "/notifications/push/v1/read", session: phone, ["receiverType": "user", "receiver": "alice"])
        #expect(read.status == 200 && read.data["devices"] as? Int == 1)
        #expect(read.data["unreadCount"] as? Int == 1, "the reading device gets the total in the answer")
        let push = try #require(try Self.readPushes(harness, uid: "bob").last)
        #expect(push["conversationId"] as? String == "alice_user_bob")
        #expect(push["unreadCount"] as? String == "1")
        #expect(push["aps"] as? [String: Int] == ["content-available": 1, "badge": 1])
        // It is Contract/payloads/read-counted.json (whose pushId is an example).
        var fixture = try Fixtures.load("payloads", "read-counted")
        fixture["pushId"] = push["pushId"]
        #expect(NSDictionary(dictionary: push).isEqual(to: fixture), "the read push differs from read-counted.json")

        // The admin API says what is left; the changes feed's read carries the total too.
        let counts = try await harness.admin("GET", "/users/bob/badge", appId: "app1")
        #expect(counts.status == 200)
        #expect(counts.data["uid"] as? String == "bob")
        #expect(counts.data["total"] as? Int == 1)
        #expect(Self.conversations(counts) == ["bob_user_carol: 1"])
        let changes = try harness.store.changes(appId: "app1", uid: "bob", after: 0, limit: 10).entries
        #expect(changes.last?.change.unreadCount == 1)

        // The next message counts on from there.
        let next = try await harness.send(Self.message("m4", from: "alice"))
        #expect(Self.badges(try await harness.jobs(of: next)) == [2, 2])
    }

    /// A send refused after it counted (a payload APNs would refuse, an idempotency key reused
    /// with another body) or replayed after a read takes its count back: nothing was sent for it.
    @Test func aRefusedOrReplayedSendLeavesTheCountAsItWas() async throws {
        let (harness, phone, _) = try await Self.autoApp()
        _ = try await harness.send(Self.message("m1", from: "alice"))
        // Too large for APNs: refused naming the field, and m2 does not count.
        let huge = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1",
            Self.message("m2", from: "alice", extra: ["custom": ["blob": String(repeating: "x", count: 5000)]]))
        #expect(huge.status == 400, "\(huge.json)")
        var counts = try await harness.admin("GET", "/users/bob/badge", appId: "app1")
        #expect(counts.data["total"] as? Int == 1)
        // Sent with a key, read, then the same send again: replayed, not counted again.
        let keyed = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.message("m3", from: "carol"), headers: ["Idempotency-Key": "k3"])
        #expect(keyed.status == 200, "\(keyed.json)")
        _ = try await harness.client(
            "POST", "/notifications/push/v1/read", session: phone, ["receiverType": "user", "receiver": "carol"])
        let replay = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.message("m3", from: "carol"), headers: ["Idempotency-Key": "k3"])
        #expect(replay.data["replayed"] as? Bool == true)
        // The key again with another message: 422, and m4 does not count.
        let reused = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.message("m4", from: "carol"), headers: ["Idempotency-Key": "k3"])
        #expect(reused.status == 422)
        counts = try await harness.admin("GET", "/users/bob/badge", appId: "app1")
        #expect(counts.data["total"] as? Int == 1)
        #expect(Self.conversations(counts) == ["alice_user_bob: 1"])
    }

    @Test func aRetriedMessageCountsOnceAndTheSenderNeverCountsTheirOwn() async throws {
        let (harness, _, _) = try await Self.autoApp()
        _ = try await harness.send(Self.message("m1", from: "alice"))
        // The same message id again (a retry without an idempotency key): no second count.
        let again = try await harness.send(Self.message("m1", from: "alice"))
        #expect(Self.badges(try await harness.jobs(of: again)) == [1, 1])
        // The same id in another conversation is another message.
        let other = try await harness.send(Self.message("m1", from: "carol"))
        #expect(Self.badges(try await harness.jobs(of: other)) == [2, 2])
        // Bob's own message, pushed to his own devices: it does not count for him.
        var own = Self.message("m9", from: "bob", to: "alice")
        own["recipients"] = [["uid": "bob"], ["uid": "alice"]]
        let sent = try await harness.send(own)
        let recipients = try #require(sent.data["recipients"] as? [[String: Any]])
        #expect(recipients.first { $0["uid"] as? String == "bob" }?["badge"] as? Int == 2)
        #expect(recipients.first { $0["uid"] as? String == "alice" }?["badge"] as? Int == 1)
        // Reactions and actions are not messages: they carry the total without adding to it.
        let reaction = try await harness.send(Self.message("r1", from: "alice", extra: ["category": "reaction", "reaction": "👍"]))
        #expect(Self.badges(try await harness.jobs(of: reaction)) == [2, 2])
        let total = try await harness.admin("GET", "/users/bob/badge", appId: "app1")
        #expect(total.data["total"] as? Int == 2)
    }

    @Test func perRecipientAutoAndAnExplicitNumberWinsInACallerApp() async throws {
        let harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        let app = try await harness.makeApp()
        #expect(app.data["badge"] as? String == "caller", "the default is today's behaviour")
        for uid in ["alice", "bob", "carol", "dave"] {
            let session = try await harness.makeUser(uid)
            try await harness.register("\(uid)0000phone", platform: "apns_ios_device", session: session)
        }
        var body = Self.message("m1", from: "alice")
        body["recipients"] = [["uid": "bob", "badge": "auto"], ["uid": "carol", "badge": 7], ["uid": "dave"]]
        let sent = try await harness.send(body)
        let jobs = try await harness.jobs(of: sent)
        func badge(_ uid: String) -> Int?? { Self.badges(jobs.filter { $0["uid"] as? String == uid }).first }
        #expect(badge("bob") == .some(1))
        #expect(badge("carol") == .some(7))
        #expect(badge("dave") == .some(nil))
        // In a caller app only the auto recipient is counted.
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "carol").total == 0)
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "dave").total == 0)
        // A read of a user the service counts for carries the total, 0 included.
        let bob = try await harness.admin("POST", "/users/bob/read", appId: "app1", ["receiverType": "user", "receiver": "alice"])
        #expect(bob.status == 200)
        #expect(try Self.readPushes(harness, uid: "bob").last?["aps"] as? [String: Int] == ["content-available": 1, "badge": 0])
        // …and one the service does not count for is as before: no badge.
        _ = try await harness.admin("POST", "/users/dave/read", appId: "app1", ["receiverType": "user", "receiver": "alice"])
        let dave = try #require(try Self.readPushes(harness, uid: "dave").last)
        #expect(dave["unreadCount"] == nil && dave["aps"] as? [String: Int] == ["content-available": 1])

        // Refusals name the field.
        var bad = Self.message("m2", from: "alice")
        bad["recipients"] = [["uid": "bob", "badge": "many"]]
        let refused = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", bad)
        #expect(refused.status == 400)
        #expect(((refused.json["error"] as? [String: Any])?["details"] as? [String: Any])?["recipients[0].badge"] != nil)
        let badApp = try await harness.admin("PUT", "/apps/app1", ["badge": "sometimes"])
        #expect(badApp.status == 400)
        #expect(((badApp.json["error"] as? [String: Any])?["details"] as? [String: Any])?["badge"] != nil)
        #expect(try await harness.admin("GET", "/apps/app1").data["badge"] as? String == "caller")
    }

    /// A read (and a reset, and a deletion) marks the counted messages instead of forgetting
    /// them: the same send retried later without an idempotency key, or a message whose
    /// deletion arrived first, counts nothing.
    @Test func aSendRetriedAfterTheReadOrAfterItsDeletionCountsNothing() async throws {
        let (harness, phone, _) = try await Self.autoApp()
        _ = try await harness.send(Self.message("m1", from: "alice"))
        let read = try await harness.client(
            "POST", "/notifications/push/v1/read", session: phone, ["receiverType": "user", "receiver": "alice"])
        #expect(read.data["unreadCount"] as? Int == 0)
        let retried = try await harness.send(Self.message("m1", from: "alice"))
        #expect(Self.badges(try await harness.jobs(of: retried)) == [0, 0])
        // A reset by the admin API marks them the same way.
        _ = try await harness.send(Self.message("m2", from: "carol"))
        #expect(try await harness.admin("DELETE", "/users/bob/badge", appId: "app1").data["total"] as? Int == 0)
        #expect(Self.badges(try await harness.jobs(of: try await harness.send(Self.message("m2", from: "carol")))) == [0, 0])
        // The deletion of m3 arrives before m3 itself: m3 never counts.
        let deletion = ["action": "deleted", "sentAt": 1_732_900_070_000] as [String: Any]
        _ = try await harness.send(Self.message("m3", from: "carol", extra: deletion))
        #expect(Self.badges(try await harness.jobs(of: try await harness.send(Self.message("m3", from: "carol")))) == [0, 0])
        // A new message still counts.
        #expect(Self.badges(try await harness.jobs(of: try await harness.send(Self.message("m4", from: "alice")))) == [1, 1])
        #expect(Self.conversations(try await harness.admin("GET", "/users/bob/badge", appId: "app1")) == ["alice_user_bob: 1"])
    }

    @Test func anExplicitNumberWinsInAnAutoAppAndTheMessageStillCounts() async throws {
        let (harness, _, _) = try await Self.autoApp()
        let sent = try await harness.send(Self.message("m1", from: "alice", recipientItem: ["badge": 42]))
        #expect(Self.badges(try await harness.jobs(of: sent)) == [42, 42])
        let next = try await harness.send(Self.message("m2", from: "alice"))
        #expect(Self.badges(try await harness.jobs(of: next)) == [2, 2])
    }

    @Test func aDeletionOfAnUnreadMessageTakesOneAway() async throws {
        let (harness, _, _) = try await Self.autoApp()
        _ = try await harness.send(Self.message("m1", from: "alice"))
        _ = try await harness.send(Self.message("m2", from: "alice"))
        let deletion = ["action": "deleted", "sentAt": 1_732_900_070_000] as [String: Any]
        _ = try await harness.send(Self.message("m1", from: "alice", extra: deletion))
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "bob").total == 1)
        // Deleting it again, or deleting a message Bob already read, takes nothing more.
        _ = try await harness.send(Self.message("m1", from: "alice", extra: deletion))
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "bob").total == 1)
        let next = try await harness.send(Self.message("m3", from: "carol"))
        #expect(Self.badges(try await harness.jobs(of: next)) == [2, 2])
    }

    @Test func aMutedConversationStillCountsAndTheNextPushCarriesIt() async throws {
        let (harness, phone, _) = try await Self.autoApp()
        let mute = try await harness.client(
            "PUT", "/notifications/push/v1/preferences/mutes", session: phone, ["receiverType": "user", "receiver": "alice"])
        #expect(mute.status == 200)
        let muted = try await harness.send(Self.message("m1", from: "alice"))
        let jobs = try await harness.jobs(of: muted)
        #expect(jobs.allSatisfy { $0["skipped"] as? Bool == true && $0["rule"] as? String == "muted" })
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "bob").total == 1)
        let next = try await harness.send(Self.message("m2", from: "carol"))
        #expect(Self.badges(try await harness.jobs(of: next)) == [2, 2])
    }

    @Test func theAdminAPIReadsAndResetsTheCounts() async throws {
        let (harness, _, _) = try await Self.autoApp()
        _ = try await harness.send(Self.message("m1", from: "alice"))
        _ = try await harness.send(Self.message("m2", from: "carol"))
        _ = try await harness.send(Self.message("m3", from: "carol"))
        let one = try await harness.admin("DELETE", "/users/bob/badge?conversationId=bob_user_carol", appId: "app1")
        #expect(one.status == 200)
        #expect(one.data["total"] as? Int == 1)
        #expect(Self.conversations(one) == ["alice_user_bob: 1"])
        let all = try await harness.admin("DELETE", "/users/bob/badge", appId: "app1")
        #expect(all.status == 200 && all.data["total"] as? Int == 0)
        #expect((all.data["conversations"] as? [Any])?.isEmpty == true)
        let empty = try await harness.admin("GET", "/users/bob/badge", appId: "app1")
        #expect(empty.data["total"] as? Int == 0)
        // Unknown users, bad ids, no admin key.
        #expect(try await harness.admin("GET", "/users/nobody/badge", appId: "app1").status == 404)
        #expect(try await harness.admin("DELETE", "/users/nobody/badge", appId: "app1").status == 404)
        #expect(try await harness.admin("DELETE", "/users/bob/badge?conversationId=a%20b", appId: "app1").status == 400)
        #expect(try await harness.json("GET", "/users/bob/badge", headers: ["appid": "app1"]).status == 401)
        // Deleting the user deletes their counts.
        _ = try await harness.send(Self.message("m4", from: "alice"))
        #expect(try await harness.admin("DELETE", "/users/bob", appId: "app1").status == 200)
        #expect(try harness.store.rowCount(table: .unreadMessages) == 0)
    }

    @Test func theCountsSurviveARestart() async throws {
        let directory = NSTemporaryDirectory() + "push-badge-restart-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try TestDatabase(directory: directory)
        do {
            let first = try await Harness.start(database: database) {
                $0.dataDirectory = directory
                $0.rateLimitPerMinute = 0
            }
            try await first.makeApp()
            _ = try await first.admin("PUT", "/apps/app1", ["badge": "auto"])
            let bob = try await first.makeUser("bob")
            try await first.register("aaaa0000phone", platform: "apns_ios_device", session: bob)
            _ = try await first.send(Self.message("m1", from: "alice"))
            _ = try await first.send(Self.message("m2", from: "carol"))
        }
        // A new service on the same store counts on.
        let second = try await Harness.start(database: database) {
            $0.dataDirectory = directory
            $0.rateLimitPerMinute = 0
        }
        #expect(try await second.admin("GET", "/users/bob/badge", appId: "app1").data["total"] as? Int == 2)
        let next = try await second.send(Self.message("m3", from: "alice"))
        #expect(Self.badges(try await second.jobs(of: next)) == [3])
    }
}
