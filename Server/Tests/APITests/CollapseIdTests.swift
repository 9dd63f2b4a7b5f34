import Foundation
import PushCore
import PushMocks
import PushTestSupport
import Testing

/// Every chat and campaign push has an `apns-collapse-id` (Contract/WIRE-CONTRACT.md §5):
/// `<kind>-` + the base64url SHA-256 of the id, distinct per kind (a reaction never replaces its
/// message), within APNs' 64 bytes for 128-character ids, and on FCM as
/// `apns.headers.apns-collapse-id`. On SQLite, and on PostgreSQL with `PUSH_TEST_DATABASE_URL`.
@Suite struct CollapseIdTests {
    /// `msg-` + base64url SHA-256 of "1042", as `Contract/client/changes.json` shows it.
    static let message1042 = "msg-IW2lS1kxptN8yo4plTNh_gLGgLvYtII0P1COMujpzDs"

    static func chat(id: String, category: String) -> [String: Any] {
        var message: [String: Any] = [
            "id": id, "category": category, "sender": ["uid": "alice", "name": "Alice"], "receiver": ["uid": "bob", "name": "Bob"],
            "text": "See you at 5",
        ]
        if category == "reaction" { message["reaction"] = "👍" }
        return ["type": "chat", "recipients": [["uid": "bob"]], "message": message]
    }

    static func campaign(id: String) -> [String: Any] {
        [
            "type": "campaign", "recipients": [["uid": "bob"]],
            "campaign": ["id": id, "campaignId": "spring", "title": "Spring", "body": "50% off"] as [String: Any],
        ]
    }

    /// The collapse ids of a send's jobs, one per job.
    static func collapseIds(_ harness: Harness, _ body: [String: Any]) async throws -> [String?] {
        let sent = try await harness.send(body)
        return try await harness.jobs(of: sent).map { ($0["headers"] as? [String: Any])?["collapseId"] as? String }
    }

    @Test func chatReactionActionAndCampaignPushesHaveCollapseIdsOfTheirOwn() async throws {
        let harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        let bob = try await harness.makeUser("bob")
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        try await harness.register("b0b0fcm", platform: "fcm_ios", session: bob)

        var seen: [String: String] = [:]
        for (kind, body) in [
            ("msg", Self.chat(id: "1042", category: "message")), ("rct", Self.chat(id: "1042", category: "reaction")),
            ("act", Self.chat(id: "1042", category: "action")), ("cmp", Self.campaign(id: "1042")),
        ] {
            let ids = try await Self.collapseIds(harness, body)
            // Both tokens' jobs (APNs and FCM) carry the same one: a resend on either replaces.
            #expect(ids.count == 2 && Set(ids).count == 1, "\(kind): \(ids)")
            let id = try #require(ids.first ?? nil)
            #expect(id.hasPrefix(kind + "-") && id.utf8.count == 47, "\(kind): \(id)")
            seen[kind] = id
        }
        #expect(seen["msg"] == Self.message1042)
        #expect(Set(seen.values).count == 4, "a reaction, an action and a campaign never replace the message: \(seen)")
        // The same message sent again (a retry of the app) collapses with the first.
        #expect(try await Self.collapseIds(harness, Self.chat(id: "1042", category: "message")) == [Self.message1042, Self.message1042])
    }

    @Test func aCollapseIdFitsAPNsFor128CharacterIds() async throws {
        let harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        let bob = try await harness.makeUser("bob")
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
        let long = String(repeating: "m", count: 127) + "1"
        let other = String(repeating: "m", count: 127) + "2"
        var ids: [String] = []
        for body in [
            Self.chat(id: long, category: "message"), Self.chat(id: other, category: "message"),
            Self.chat(id: long, category: "reaction"), Self.campaign(id: long),
        ] {
            // Accepted (APNs would refuse a longer collapse id: the send API checks it at the door).
            let id = try #require(try await Self.collapseIds(harness, body).first ?? nil)
            #expect(id.utf8.count <= 64, "\(id)")
            ids.append(id)
        }
        #expect(Set(ids).count == 4, "ids that differ in their last character do not collapse: \(ids)")
    }

    @Test func theCollapseIdReachesAPNsAndFCMAsTheirHeader() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let harness = try await Harness.start(sender: .delivery) { configuration in
            configuration.rateLimitPerMinute = 0
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
            configuration.delivery.fcmBaseURL = mock.baseURL
        }
        try await harness.addMockProviders(mock)
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register("aa01", platform: "apns_ios_device", session: bob).status == 200)
        #expect(try await harness.register("ee04", platform: "fcm_ios", session: bob).status == 200)
        try await harness.send(Self.chat(id: "1042", category: "message"))
        #expect(await eventually { mock.log(kind: "apns").count == 1 && mock.log(kind: "fcm").count == 1 })
        #expect(mock.log(kind: "apns").first?["collapse_id"] as? String == Self.message1042)
        let message = try #require(mock.log(kind: "fcm").first?["message"] as? [String: Any])
        let headers = (message["apns"] as? [String: Any])?["headers"] as? [String: String] ?? [:]
        #expect(headers["apns-collapse-id"] == Self.message1042)

        // An edit reaches both as a background push (an FCM data message) with its own collapse id.
        var edit = Self.chat(id: "1042", category: "message")
        var edited = edit["message"] as? [String: Any] ?? [:]
        edited["action"] = "edited"
        edited["text"] = "See you at 6"
        edit["message"] = edited
        #expect(await eventually { (try? harness.store.pushJobCounts().delivered) == 2 })
        #expect(try await harness.send(edit).data["jobs"] as? Int == 2)
        #expect(await eventually { mock.log(kind: "apns").count == 2 && mock.log(kind: "fcm").count == 2 })
        let apns = try #require(mock.log(kind: "apns").last)
        #expect(apns["push_type"] as? String == "background")
        #expect(apns["priority"] as? String == "5")
        #expect(apns["collapse_id"] as? String == "edt-" + Self.message1042.dropFirst(4))
        let fcm = try #require(mock.log(kind: "fcm").last?["message"] as? [String: Any])
        #expect(fcm["notification"] == nil, "a data message: nothing to show")
        let fcmHeaders = (fcm["apns"] as? [String: Any])?["headers"] as? [String: String] ?? [:]
        #expect(fcmHeaders["apns-push-type"] == "background" && fcmHeaders["apns-priority"] == "5")
        #expect(fcmHeaders["apns-collapse-id"] == "edt-" + Self.message1042.dropFirst(4))
        #expect((fcm["data"] as? [String: String])?["action"] == "edited")
    }
}
