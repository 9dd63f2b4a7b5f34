import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// Edits and deletions (`message.action`, Contract/WIRE-CONTRACT.md §3, §4): only to the devices
/// that got the message, as background pushes; a pending original skipped or rewritten; an
/// unknown message answered with its reason. On SQLite, and on PostgreSQL with
/// `PUSH_TEST_DATABASE_URL`.
@Suite struct MessageActionTests {
    let harness: Harness
    let bob: Harness.TestSession

    init() async throws {
        harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        _ = try await harness.makeUser("alice")
        bob = try await harness.makeUser("bob")
    }

    /// A 1:1 message from Alice to Bob (id 1042), with `extra` merged into `message`.
    static func message(_ extra: [String: Any] = [:], to recipients: [String] = ["bob"]) -> [String: Any] {
        var message: [String: Any] = [
            "id": "1042", "sender": ["uid": "alice", "name": "Alice"], "receiver": ["uid": "bob", "name": "Bob"],
            "text": "See you at 5", "sentAt": 1_732_900_000_000,
        ]
        message.merge(extra) { $1 }
        return ["type": "chat", "recipients": recipients.map { ["uid": $0] }, "message": message]
    }

    static var edit: [String: Any] { ["action": "edited", "text": "See you at 6", "sentAt": 1_732_900_060_000] }
    static var deletion: [String: Any] { ["action": "deleted", "sentAt": 1_732_900_070_000] }

    @Test func theEditAndTheDeletionPushesAreTheContractFixtures() async throws {
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        try await harness.send(Self.message())
        try harness.deliverPending()

        for (name, action) in [("chat-edited", Self.edit), ("chat-deleted", Self.deletion)] {
            let sent = try await harness.send(Self.message(action))
            #expect(sent.data["jobs"] as? Int == 1, "\(name): \(sent.json)")
            let job = try #require(try await harness.jobs(of: sent).first)
            var fixture = try Fixtures.load("payloads", name)
            #expect(fixture["pushId"] is String)
            fixture["pushId"] = job["id"]
            let payload = job["payload"] as? [String: Any] ?? [:]
            #expect(NSDictionary(dictionary: payload).isEqual(to: fixture), "\(name) differs from Contract/payloads: \(payload)")
            // A background push: priority 5, kept a day, its own collapse id (never the message's).
            let headers = job["headers"] as? [String: Any] ?? [:]
            #expect(headers["pushType"] as? String == "background")
            #expect(headers["priority"] as? Int == 5)
            #expect(headers["topicSuffix"] as? String == "")
            let expiration = Double(headers["expiration"] as? Int ?? 0)
            #expect(abs(expiration - Date().timeIntervalSince1970 - 86_400) < 600, "expiration \(expiration)")
            let prefix = name == "chat-edited" ? "edt-" : "del-"
            #expect(headers["collapseId"] as? String == prefix + "IW2lS1kxptN8yo4plTNh_gLGgLvYtII0P1COMujpzDs")
            #expect(job["rule"] is NSNull && job["skipped"] as? Bool == false)
        }
    }

    @Test func actionsGoOnlyToTheDevicesThatGotTheMessage() async throws {
        let carol = try await harness.makeUser("carol")
        _ = try await harness.makeUser("dave")
        let erin = try await harness.makeUser("erin")
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        try await harness.register("b0b0voip", platform: "apns_ios_voip", session: bob)
        try await harness.register("ca01fcm", platform: "fcm_ios", session: carol)
        try await harness.register("e0e0phone", platform: "apns_ios_device", session: erin)
        // Erin muted the group: her push is skipped, so the message was never pushed to her.
        let mute = try await harness.client(
            "PUT", "/notifications/push/v1/preferences/mutes", session: erin, ["receiverType": "group", "receiver": "team"])
        #expect(mute.status == 200)
        let group: [String: Any] = ["receiver": ["guid": "team", "name": "Team"], "receiverType": "group"]
        let sent = try await harness.send(Self.message(group, to: ["bob", "carol", "erin"]))
        #expect(sent.data["jobs"] as? Int == 2)
        try harness.deliverPending()
        // Bob's iPad signs in after the message went out: it never got it.
        let issued = try await harness.admin("POST", "/users/bob/auth_tokens", appId: "app1")
        let ipad = Harness.TestSession(appId: "app1", uid: "bob", authToken: try #require(issued.data["authToken"] as? String))
        try await harness.register("b0b0ipad", platform: "apns_ios_device", session: ipad)

        for action in [Self.edit, Self.deletion] {
            let answer = try await harness.send(Self.message(group.merging(action) { $1 }, to: ["bob", "carol", "dave", "erin"]))
            #expect(answer.status == 200)
            #expect(answer.data["jobs"] as? Int == 2)
            let recipients = answer.data["recipients"] as? [[String: Any]] ?? []
            #expect(recipients.map { $0["uid"] as? String ?? "" } == ["bob", "carol", "dave", "erin"])
            #expect(recipients.map { $0["jobs"] as? Int } == [1, 1, 0, 0])
            #expect(recipients.map { $0["reason"] as? String } == [nil, nil, "message-unknown", "message-unknown"])
            let jobs = try await harness.jobs(of: answer)
            // Bob's phone (never his VoIP token, never his iPad) and Carol's FCM token.
            #expect(jobs.map { $0["token"] as? String ?? "" }.sorted() == ["b0b0phone", "ca01fcm"])
            for job in jobs {
                let payload = job["payload"] as? [String: Any] ?? [:]
                #expect(payload["conversationId"] as? String == "group_team")
                #expect(payload["aps"] as? [String: Int] == ["content-available": 1], "no alert: an FCM data message too")
            }
            let edited = jobs.first.flatMap { $0["payload"] as? [String: Any] }
            if action["action"] as? String == "edited" {
                #expect(edited?["title"] as? String == "Team")
                #expect(edited?["body"] as? String == "Alice: See you at 6")
            }
        }
    }

    @Test func aDeletionSkipsThePendingOriginalAndSendsNothingMore() async throws {
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        let original = try await harness.send(Self.message())
        let deleted = try await harness.send(Self.message(Self.deletion))
        #expect(deleted.data["jobs"] as? Int == 0)
        let recipient = (deleted.data["recipients"] as? [[String: Any]])?.first
        #expect(recipient?["jobs"] as? Int == 0 && recipient?["reason"] == nil, "the message is known: \(deleted.json)")
        // The original's log and trace say why it never went out.
        let requestId = try #require(original.data["requestId"] as? String)
        let log = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/log", appId: "app1").dataArray
        #expect(log.map { $0["state"] as? String } == ["skipped"])
        #expect(log.map { $0["rule"] as? String } == ["deleted"])
        let trace = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/trace", appId: "app1")
        let traced = (trace.data["recipients"] as? [[String: Any]])?.first
        #expect((traced?["skipped"] as? [[String: String]]) == [["reason": "deleted"]])
        #expect(try harness.store.claimPushJobs(limit: 10, lease: 60, now: Date()).isEmpty, "nothing left to send")
        #expect(try harness.store.activePushJobCounts().pending == 0)
    }

    @Test func anEditRewritesThePendingOriginalAndSendsNothingMore() async throws {
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        let original = try await harness.send(
            Self.message(["custom": ["k": "v"], "message": ["id": "1042", "data": ["text": "See you at 5"]]]))
        let before = try #require(try await harness.jobs(of: original).first)
        let edited = try await harness.send(Self.message(Self.edit))
        #expect(edited.data["jobs"] as? Int == 0)
        let after = try #require(try await harness.jobs(of: original).first)
        let payload = after["payload"] as? [String: Any] ?? [:]
        #expect(payload["title"] as? String == "Alice")
        #expect(payload["body"] as? String == "See you at 6")
        let aps = payload["aps"] as? [String: Any] ?? [:]
        #expect(aps["alert"] as? [String: String] == ["title": "Alice", "body": "See you at 6"])
        #expect(aps["sound"] as? String == "default" && aps["mutable-content"] as? Int == 1, "still the message's alert")
        #expect(payload["message"] == nil, "the embedded message would show the old text")
        #expect(payload["custom"] as? [String: String] == ["k": "v"])
        #expect(payload["pushId"] as? String == before["id"] as? String)
        #expect(after["headers"] as? NSDictionary == before["headers"] as? NSDictionary, "same collapse id and headers")
        // The rewritten push is what goes out.
        let claimed = try harness.store.claimPushJobs(limit: 10, lease: 60, now: Date())
        #expect(claimed.map(\.id) == [before["id"] as? String])
        let sent = try JSONSerialization.jsonObject(with: try #require(claimed.first).payload) as? [String: Any]
        #expect(sent?["body"] as? String == "See you at 6")
    }

    @Test func anUnknownMessageIsAnsweredWithItsReason() async throws {
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        // A reaction with id 1042, and message 1042 in another conversation: neither is message 1042 here.
        try await harness.send(Self.message(["category": "reaction", "reaction": "👍"]))
        try await harness.send(Self.message(["receiver": ["guid": "team"], "receiverType": "group"]))
        try harness.deliverPending()
        for action in [Self.edit, Self.deletion, Self.edit.merging(["id": "never-sent"]) { $1 }] {
            let answer = try await harness.send(Self.message(action))
            #expect(answer.status == 200)
            #expect(answer.data["jobs"] as? Int == 0)
            let recipients = answer.data["recipients"] as? [[String: Any]] ?? []
            #expect(recipients.count == 1)
            #expect(recipients.first?["uid"] as? String == "bob")
            #expect(recipients.first?["jobs"] as? Int == 0)
            #expect(recipients.first?["reason"] as? String == "message-unknown")
        }
        // Editing the reaction (its category) finds it.
        let reaction = try await harness.send(Self.message(Self.edit.merging(["category": "reaction", "reaction": "❤️"]) { $1 }))
        #expect(reaction.data["jobs"] as? Int == 1)
    }

    @Test func aMessagePurgedByRetentionIsUnknown() async throws {
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        try await harness.send(Self.message())
        try harness.deliverPending()
        let counts = try harness.store.purgeFinished(before: Date().addingTimeInterval(60), batchSize: 100)
        #expect(counts.pushJobs == 1)
        let answer = try await harness.send(Self.message(Self.edit))
        #expect((answer.data["recipients"] as? [[String: Any]])?.first?["reason"] as? String == "message-unknown")
    }

    @Test func anEditWithoutTextIsABadRequestAndStoresNothing() async throws {
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        try await harness.send(Self.message())
        try harness.deliverPending()
        let before = try harness.store.allPushJobs().count
        for (extra, field) in [
            (["action": "edited"], "message.text"), (["action": "edited", "text": NSNull()], "message.text"),
            (["action": "edited", "text": ""], "message.text"), (["action": "archived"], "message.action"),
            (["action": 1], "message.action"),
        ] as [([String: Any], String)] {
            var body = Self.message(extra)
            var message = body["message"] as? [String: Any] ?? [:]
            if extra["text"] == nil { message["text"] = nil }
            body["message"] = message
            let answer = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
            #expect(answer.status == 400, "\(extra)")
            #expect(answer.errorCode == "ERR_BAD_REQUEST")
            let details = (answer.json["error"] as? [String: Any])?["details"] as? [String: String] ?? [:]
            #expect(details[field] != nil, "\(extra): \(answer.json)")
        }
        let missing = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1",
            Self.message(["action": "edited"]).merging([
                "message": ["id": "1042", "action": "edited", "sender": ["uid": "alice"], "receiver": ["uid": "bob"]]
            ]) { $1 })
        let message = (missing.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("message.text") && message.contains("edit"), "a clear error: \(message)")
        #expect(try harness.store.allPushJobs().count == before, "nothing stored")
        #expect(try harness.store.changes(appId: "app1", uid: "bob", after: 0, limit: 10).entries.isEmpty, "no change recorded")
        // A deletion needs no text.
        var deletion = Self.message(Self.deletion)
        var message2 = deletion["message"] as? [String: Any] ?? [:]
        message2["text"] = nil
        deletion["message"] = message2
        #expect(try await harness.send(deletion).data["jobs"] as? Int == 1)
    }

    @Test func anActionIsIdempotentAndTraced() async throws {
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        try await harness.send(Self.message())
        try harness.deliverPending()
        let first = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.message(Self.edit), headers: ["Idempotency-Key": "edit-1"])
        let again = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.message(Self.edit), headers: ["Idempotency-Key": "edit-1"])
        #expect(again.data["replayed"] as? Bool == true)
        #expect(again.data["requestId"] as? String == first.data["requestId"] as? String)
        let reused = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: "app1", Self.message(Self.deletion), headers: ["Idempotency-Key": "edit-1"])
        #expect(reused.status == 422)
        #expect(try harness.store.allPushJobs().filter { $0.headers.collapseId?.hasPrefix("edt-") == true }.count == 1)
        let requestId = try #require(first.data["requestId"] as? String)
        let trace = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/trace", appId: "app1")
        let devices = (trace.data["recipients"] as? [[String: Any]])?.first?["devices"] as? [[String: Any]] ?? []
        #expect(devices.count == 1)
        #expect(devices.first?["token"] as? String == "b0b0phon…")
    }
}
