import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// Sends to a whole group (issue 31): `"recipients": {"group": "<guid>", "badge"?}`. A group of
/// at most 1,000 members (its sender left out) is sent to while the request waits (200, the
/// answer as for named recipients plus `group`); a larger one is answered 202 and expanded in the
/// background, a batch per transaction. Members are taken when the send is accepted; the
/// sender never gets their own message; non-users get nothing; the badge follows the service's
/// rule per member. Both stores.
@Suite struct GroupSendTests {
    /// A group chat message from `sender` in group `guid`, to the group's members.
    static func groupMessage(
        _ id: String, from sender: String = "alice", group guid: String = "team", recipients: [String: Any]? = nil
    ) -> [String: Any] {
        [
            "type": "chat", "recipients": recipients ?? ["group": guid],
            "message": [
                "id": id, "sender": ["uid": sender, "name": sender.capitalized], "receiver": ["guid": guid, "name": "Team"],
                "receiverType": "group", "text": "Hello team",
            ] as [String: Any],
        ]
    }

    /// A campaign to a group's members.
    static func campaign(_ id: String, group guid: String) -> [String: Any] {
        [
            "type": "campaign", "recipients": ["group": guid],
            "campaign": ["id": id, "campaignId": "c-\(id)", "title": "News", "body": "Something new"],
        ]
    }

    /// A send answer's `group` as `guid: members`.
    static func group(_ answer: RawHTTP.Response) -> String? {
        guard let group = answer.data["group"] as? [String: Any] else { return nil }
        return "\(group["guid"] as? String ?? "?"): \(group["members"] as? Int ?? -1)"
    }

    /// `details` of an error answer.
    static func details(_ response: RawHTTP.Response) -> [String: Any] {
        (response.json["error"] as? [String: Any])?["details"] as? [String: Any] ?? [:]
    }

    /// Users `uids` of app1, each with one APNs device token (`tok-<uid>`), straight into the store.
    static func importUsers(_ store: any ServiceStore, uids: [String]) throws {
        try ImportedUsers.add(store, appId: "app1", uids: uids, providerId: "apns-1")
    }

    /// Puts `uids` into group `guid` of app1, 5,000 per call, through the admin API.
    static func makeGroup(_ harness: Harness, _ guid: String, uids: [String]) async throws {
        for start in stride(from: 0, to: max(uids.count, 1), by: 5_000) {
            let chunk = Array(uids[start..<min(start + 5_000, uids.count)])
            let answer = try await harness.admin(start == 0 ? "PUT" : "POST", "/groups/\(guid)/members", appId: "app1", ["uids": chunk])
            #expect(answer.status == 200, "\(answer.json)")
        }
    }

    /// The jobs stored for each uid, counted.
    static func jobsPerUid(_ store: any ServiceStore, requestId: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for job in try store.pushJobs(requestId: requestId) { counts[job.uid, default: 0] += 1 }
        return counts
    }

    /// Waits until the group send's expansion ended (while it makes progress), and returns it.
    static func expanded(_ store: any ServiceStore, requestId: String, appId: String = "app1") async throws -> GroupSend? {
        let wait = try await waitWhileProgressing("expansion of \(requestId)", stall: 60) {
            try store.groupSend(appId: appId, id: requestId).map { "\($0.state.rawValue) \($0.done)/\($0.members)" } ?? "none"
        } until: {
            $0.hasPrefix("done") || $0.hasPrefix("failed")
        }
        #expect(wait.done, "\(wait.value)")
        return try store.groupSend(appId: appId, id: requestId)
    }

    // MARK: While the request waits

    /// A group of at most 1,000: the sender is left out, members who are not users get no push,
    /// in an `auto` app each member's badge is their own count, and the answer names the group.
    @Test func aSmallGroupIsSentToAtOnceWithoutItsSenderAndWithEachMembersBadge() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp()
        #expect(try await harness.admin("PUT", "/apps/app1", ["badge": "auto"]).status == 200)
        for uid in ["alice", "bob", "carol"] {
            let session = try await harness.makeUser(uid)
            try await harness.register("aaaa-\(uid)", platform: "apns_ios_device", session: session)
        }
        // Carol already has an unread message: her count goes on from there.
        _ = try harness.store.addUnread(
            appId: "app1", messages: [UnreadMessage(uid: "carol", conversationId: "alice_user_carol", messageId: "m0")], totalsOf: [],
            now: Date())
        try await Self.makeGroup(harness, "team", uids: ["alice", "bob", "carol", "not-yet-a-user"])
        let sent = try await harness.send(Self.groupMessage("g1"))
        #expect(Self.group(sent) == "team: 3", "\(sent.json)")
        #expect(sent.data["jobs"] as? Int == 2)
        let recipients = sent.data["recipients"] as? [[String: Any]] ?? []
        #expect(recipients.map { $0["uid"] as? String } == ["bob", "carol", "not-yet-a-user"], "the sender is left out")
        #expect(recipients.map { $0["jobs"] as? Int } == [1, 1, 0], "a member who is not a user gets nothing")
        let jobs = try await harness.jobs(of: sent)
        #expect(Set(jobs.compactMap { $0["uid"] as? String }) == ["bob", "carol"])
        let badges = Dictionary(
            uniqueKeysWithValues: jobs.map { job in
                (job["uid"] as? String ?? "", ((job["payload"] as? [String: Any])?["aps"] as? [String: Any])?["badge"] as? Int)
            })
        #expect(badges == ["bob": 1, "carol": 2])
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "alice").total == 0, "the sender's own message never counts")
        // A number for the group: every member's push carries it (and, in an `auto` app, the message still counts).
        let numbered = try await harness.send(Self.groupMessage("g2", recipients: ["group": "team", "badge": 7]))
        #expect(ServiceBadgeTests.badges(try await harness.jobs(of: numbered)) == [7, 7])
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "bob").total == 2)
        // A campaign has no sender: alice gets it too.
        let campaign = try await harness.send(Self.campaign("an-1", group: "team"))
        #expect(Self.group(campaign) == "team: 4")
        #expect(Set(try await harness.jobs(of: campaign).compactMap { $0["uid"] as? String }) == ["alice", "bob", "carol"])
    }

    /// An unknown group is a 404 `ERR_GROUP_NOT_FOUND`; a malformed `recipients` a 400 naming the
    /// field; an empty group (or one of the sender only) is a send to nobody.
    @Test func unknownGroupsAndMalformedRecipientsAreRefused() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp()
        let unknown = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.groupMessage("m1", group: "nope"))
        #expect(unknown.status == 404 && unknown.errorCode == "ERR_GROUP_NOT_FOUND", "\(unknown.json)")
        for (recipients, field) in [
            (["group": "a b"] as Any, "recipients.group"), (["group": 7] as Any, "recipients.group"),
            ([String: Any]() as Any, "recipients.group"), (["group": "team", "badge": "many"] as Any, "recipients.badge"),
            (["group": "team", "badge": -1] as Any, "recipients.badge"), ("team" as Any, "recipients"),
        ] {
            var body = Self.groupMessage("m2")
            body["recipients"] = recipients
            let answer = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
            #expect(answer.status == 400 && Self.details(answer)[field] != nil, "\(recipients): \(answer.json)")
        }
        try await Self.makeGroup(harness, "solo", uids: ["alice"])
        let solo = try await harness.send(Self.groupMessage("m3", group: "solo"))
        #expect(solo.data["jobs"] as? Int == 0 && Self.group(solo) == "solo: 0")
    }

    // MARK: In the background

    /// A group larger than 1,000 is answered 202 at once and expanded in batches: the members
    /// taken at acceptance (a member added after gets nothing), the sender left out, non-users
    /// skipped, each member's badge counted, a muted member's push skipped with its rule, and
    /// the trace says how far the expansion got.
    @Test func aLargeGroupIsAnswered202AndExpandedInBatches() async throws {
        let harness = try await Harness.start { $0.groupBatchSize = 400 }
        try await harness.makeApp()
        #expect(try await harness.admin("PUT", "/apps/app1", ["badge": "auto"]).status == 200)
        let users = (0..<2_000).map { String(format: "u%04d", $0) }
        try Self.importUsers(harness.store, uids: users)
        try harness.store.setMute(
            appId: "app1", uid: "u0007", mute: PushPreferences.Mute(receiverType: "group", receiver: "team", until: nil), now: Date())
        let strangers = (0..<500).map { "zz-not-a-user-\($0)" }
        try await Self.makeGroup(harness, "team", uids: users + strangers)
        let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.groupMessage("big-1", from: "u0000"))
        #expect(sent.status == 202, "\(sent.json)")
        let requestId = try #require(sent.data["requestId"] as? String)
        #expect(sent.data["jobs"] as? Int == 0)
        #expect(sent.data["state"] as? String == "expanding")
        #expect(Self.group(sent) == "team: 2499", "the sender left out")
        // Taken at acceptance: a member added now is not sent to.
        try Self.importUsers(harness.store, uids: ["late"])
        #expect(try await harness.admin("POST", "/groups/team/members", appId: "app1", ["uids": ["late"]]).status == 200)

        let send = try #require(try await Self.expanded(harness.store, requestId: requestId))
        #expect(send.state == .done && send.done == 2_499 && send.members == 2_499 && send.jobs == 1_998, "\(send)")
        let perUid = try Self.jobsPerUid(harness.store, requestId: requestId)
        #expect(perUid.count == 1_999 && perUid.values.allSatisfy { $0 == 1 }, "one job per member who is a user")
        #expect(perUid["u0000"] == nil && perUid["late"] == nil)
        let jobs = try harness.store.pushJobs(requestId: requestId)
        #expect(jobs.filter(\.skipped).map(\.uid) == ["u0007"])
        #expect(jobs.first { $0.uid == "u0007" }?.rule == "muted")
        // Every member's badge is their own count (1), the sender's count untouched.
        let badges = try jobs.filter { !$0.skipped }.map { job in
            ((try JSONSerialization.jsonObject(with: job.payload) as? [String: Any])?["aps"] as? [String: Any])?["badge"] as? Int
        }
        #expect(Set(badges) == [1])
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "u0007").total == 1, "a muted member's message still counts")
        #expect(try harness.store.unreadCounts(appId: "app1", uid: "u0000").total == 0)
        // The trace has the expansion; the log every job.
        let trace = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/trace", appId: "app1")
        let expansion = try #require(trace.data["expansion"] as? [String: Any], "\(trace.status)")
        #expect(expansion["state"] as? String == "done" && expansion["done"] as? Int == 2_499 && expansion["members"] as? Int == 2_499)
        #expect(expansion["jobs"] as? Int == 1_998 && expansion["guid"] as? String == "team")
        #expect((trace.data["recipients"] as? [Any])?.count == 1_999)
        let log = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/log", appId: "app1")
        #expect(log.dataArray.count == 1_999)
    }

    /// Quiet when already reading (issue 31 part 2) holds a group's pushes too, in a send made
    /// while the request waits and in one expanded in the background: a member reading the
    /// group on the web gets their push only when the hold ends, and their read skips it.
    @Test func aMemberReadingTheGroupElsewhereWaitsInSmallAndLargeGroupSends() async throws {
        let harness = try await Harness.start { $0.groupBatchSize = 400 }
        try await harness.makeApp()
        #expect(try await harness.admin("PUT", "/apps/app1", ["holdWhileActiveSeconds": 20]).status == 200)
        let users = (0..<1_500).map { String(format: "u%04d", $0) }
        try Self.importUsers(harness.store, uids: users)
        try await Self.makeGroup(harness, "small", uids: Array(users.prefix(10)))
        try await Self.makeGroup(harness, "large", uids: users)
        // One conversation at a time per source: the web reads the small group, then the large one.
        func readOnTheWeb(_ guid: String) async throws {
            let reported = try await harness.admin(
                "PUT", "/users/u0003/activity", appId: "app1", ["conversationId": "group_\(guid)", "seconds": 120])
            #expect(reported.status == 200, "\(reported.json)")
        }

        try await readOnTheWeb("small")
        // A held push waits the whole hold from when its job is made, which is after this (times
        // are stored in milliseconds).
        let sentAt = Date()
        let small = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.groupMessage("hold-small", group: "small"))
        #expect(small.status == 200, "\(small.json)")
        try await readOnTheWeb("large")
        let large = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.groupMessage("hold-large", from: "u0000", group: "large"))
        #expect(large.status == 202, "\(large.json)")
        let largeId = try #require(large.data["requestId"] as? String)
        #expect(try await Self.expanded(harness.store, requestId: largeId)?.state == .done)

        for requestId in [try #require(small.data["requestId"] as? String), largeId] {
            let jobs = try harness.store.pushJobs(requestId: requestId)
            let held = jobs.filter { $0.rule == "held-while-active" }
            #expect(held.map(\.uid) == ["u0003"], "only the member who reads the group waits")
            let job = try #require(held.first)
            #expect(job.notBefore.timeIntervalSince(sentAt) >= 19.9, "\(job.notBefore) \(sentAt)")
            #expect(jobs.filter { $0.uid != "u0003" }.allSatisfy { $0.rule == nil })
        }
        // u0003 reads each group: the push still waiting there goes no more (the hold is kept
        // with the push, whatever the user reads after).
        for guid in ["small", "large"] {
            let read = try await harness.admin("POST", "/users/u0003/read", appId: "app1", ["receiverType": "group", "receiver": guid])
            #expect(read.status == 200, "\(read.json)")
        }
        let log = try await harness.admin("GET", "/notifications/push/v1/send/\(largeId)/log", appId: "app1").dataArray
        let mine = log.filter { $0["uid"] as? String == "u0003" }
        #expect(mine.count == 1 && mine.first?["state"] as? String == "skipped" && mine.first?["rule"] as? String == "read-elsewhere")
    }

    /// 50,000 members expanded in the background: every member exactly one job, the sender
    /// none, and the trace shows the expansion finished.
    @Test func fiftyThousandMembersGetOneJobEach() async throws {
        let harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        let members = (0..<50_000).map { String(format: "m%05d", $0) }
        try Self.importUsers(harness.store, uids: members)
        try await Self.makeGroup(harness, "all", uids: members)
        let started = Date()
        let sent = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.groupMessage("hello-all", from: "m00042", group: "all"))
        #expect(sent.status == 202, "\(sent.json)")
        print("GroupSendTests: 50,000 members accepted in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        let requestId = try #require(sent.data["requestId"] as? String)
        let send = try #require(try await Self.expanded(harness.store, requestId: requestId))
        print("GroupSendTests: 50,000 members expanded in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        #expect(send.state == .done && send.done == 49_999 && send.jobs == 49_999, "\(send)")
        let perUid = try Self.jobsPerUid(harness.store, requestId: requestId)
        #expect(perUid.count == 49_999, "every member but the sender")
        #expect(perUid.values.allSatisfy { $0 == 1 }, "one job each: \(perUid.filter { $0.value != 1 }.prefix(5))")
        #expect(perUid["m00042"] == nil, "the sender gets no job")
        let trace = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/trace", appId: "app1")
        let expansion = trace.data["expansion"] as? [String: Any]
        #expect(expansion?["state"] as? String == "done" && expansion?["done"] as? Int == 49_999, "\(String(describing: expansion))")
    }

    /// The same Idempotency-Key answers the same request id (202, `replayed`), and the group is
    /// expanded once; the key with another body is 422. An edit, a deletion or a call to a group
    /// over 1,000 members is refused, naming `recipients.group`; so is a push APNs would refuse.
    @Test func aReplayNeverExpandsTwiceAndWhatCannotGoToALargeGroupIsRefused() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp()
        let users = (0..<1_200).map { String(format: "u%04d", $0) }
        try Self.importUsers(harness.store, uids: users)
        try await Self.makeGroup(harness, "team", uids: users)
        let body = Self.campaign("an-9", group: "team")
        let first = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body, headers: ["Idempotency-Key": "k-9"])
        #expect(first.status == 202 && Self.group(first) == "team: 1200")
        let requestId = try #require(first.data["requestId"] as? String)
        let again = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body, headers: ["Idempotency-Key": "k-9"])
        #expect(again.status == 202 && again.data["requestId"] as? String == requestId && again.data["replayed"] as? Bool == true)
        _ = try await Self.expanded(harness.store, requestId: requestId)
        let later = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body, headers: ["Idempotency-Key": "k-9"])
        #expect(later.status == 202 && later.data["requestId"] as? String == requestId, "replayed after the expansion too")
        #expect(try harness.store.rowCount(table: .pushGroupSends) == 1)
        #expect(try harness.store.rowCount(table: .pushJobs) == 1_200)
        let other = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.campaign("an-10", group: "team"), headers: ["Idempotency-Key": "k-9"]
        )
        #expect(other.status == 422 && other.errorCode == "ERR_IDEMPOTENCY_KEY_REUSED")

        var edit = Self.groupMessage("m1", from: "u0001")
        var message = edit["message"] as? [String: Any] ?? [:]
        message["action"] = "edited"
        edit["message"] = message
        let call: [String: Any] = [
            "type": "call", "recipients": ["group": "team"],
            "call": [
                "sessionId": "s1", "callAction": "initiated", "sender": ["uid": "u0001"], "receiver": ["guid": "team"],
                "receiverType": "group",
            ] as [String: Any],
        ]
        var huge = Self.groupMessage("m2", from: "u0001")
        message = huge["message"] as? [String: Any] ?? [:]
        message["custom"] = ["blob": String(repeating: "x", count: 5_000)]
        huge["message"] = message
        for (body, field) in [(edit, "recipients.group"), (call, "recipients.group"), (huge, "message.custom")] {
            let refused = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
            #expect(refused.status == 400 && Self.details(refused)[field] != nil, "\(refused.json)")
        }
        #expect(try harness.store.rowCount(table: .pushGroupSends) == 1, "nothing stored for a refused send")
    }
}
