import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

@Suite("Notification info parsing")
struct NotificationInfoParsingTests {
    /// What each well-formed fixture must parse to.
    struct Expected: Sendable, CustomTestStringConvertible {
        var fixture: String
        var kind: CometChatNotificationKind
        var receiverType: CometChatReceiverType
        var receiverId: String
        var conversationId: String
        var messageId: String
        var parentId: String? = nil
        var unread: Int? = nil
        var callAction: String? = nil
        var callType: String? = nil
        var testDescription: String { fixture }
    }

    static let chatFixtures: [Expected] = [
        Expected(
            fixture: "chat-user", kind: .chat, receiverType: .user, receiverId: "bob",
            conversationId: "alice_user_bob", messageId: "1042", unread: 3),
        Expected(
            fixture: "chat-user-fcm", kind: .chat, receiverType: .user, receiverId: "bob",
            conversationId: "alice_user_bob", messageId: "1042", unread: 3),
        Expected(
            fixture: "chat-group", kind: .chat, receiverType: .group, receiverId: "team",
            conversationId: "group_team", messageId: "1042", unread: 3),
        Expected(
            fixture: "chat-thread-reply", kind: .chat, receiverType: .group, receiverId: "team",
            conversationId: "group_team", messageId: "1043", parentId: "1040", unread: 3),
        Expected(
            fixture: "chat-reaction", kind: .chat, receiverType: .user, receiverId: "bob",
            conversationId: "alice_user_bob", messageId: "1044", unread: 3),
        Expected(
            fixture: "chat-group-action", kind: .chat, receiverType: .group, receiverId: "team",
            conversationId: "group_team", messageId: "1045", unread: 3),
        Expected(
            fixture: "chat-mention", kind: .chat, receiverType: .group, receiverId: "team",
            conversationId: "group_team", messageId: "1046", unread: 3),
        // With loc-key and loc-args (issue 30): parsed as the plain group message.
        Expected(
            fixture: "chat-group-loc-keys", kind: .chat, receiverType: .group, receiverId: "team",
            conversationId: "group_team", messageId: "1042", unread: 3),
    ]

    static let callFixtures: [Expected] =
        ["initiated", "ongoing", "unanswered", "rejected", "busy", "cancelled", "ended"].map { (action: String) in
            Expected(
                fixture: "call-" + action, kind: .call, receiverType: .user, receiverId: "bob",
                conversationId: "alice_user_bob", messageId: "v1.us.call-7f3a", callAction: action, callType: "video")
        } + [
            Expected(
                fixture: "call-initiated-alert", kind: .call, receiverType: .user, receiverId: "bob",
                conversationId: "alice_user_bob", messageId: "v1.us.call-7f3a", callAction: "initiated", callType: "video"),
            // The same call in German (issue 30).
            Expected(
                fixture: "call-initiated-alert-de", kind: .call, receiverType: .user, receiverId: "bob",
                conversationId: "alice_user_bob", messageId: "v1.us.call-7f3a", callAction: "initiated", callType: "video"),
            Expected(
                fixture: "call-group-initiated", kind: .call, receiverType: .group, receiverId: "team",
                conversationId: "group_team", messageId: "v1.us.call-7f3a", callAction: "initiated", callType: "audio"),
        ]

    @Test("Every chat and call fixture parses to its fields", arguments: chatFixtures + callFixtures)
    func wellFormed(_ expected: Expected) throws {
        let payload = try contractPayload(expected.fixture)
        let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: payload))
        #expect(info.kind == expected.kind)
        #expect(info.senderUid == "alice")
        #expect(info.senderName == "Alice")
        #expect(info.senderAvatar == "https://example.com/a.png")
        #expect(info.receiverId == expected.receiverId)
        #expect(info.receiverType == expected.receiverType)
        #expect(info.receiverName == (expected.receiverType == .group ? "Team Rocket" : "Bob"))
        #expect(info.conversationId == expected.conversationId)
        #expect(info.messageId == expected.messageId)
        #expect(info.parentId == expected.parentId)
        #expect(info.unreadMessageCount == expected.unread)
        #expect(info.callAction == expected.callAction)
        #expect(info.callType == expected.callType)
        #expect(info.sessionId == (expected.kind == .call ? "v1.us.call-7f3a" : nil))
        #expect(info.sentAt == Date(timeIntervalSince1970: 1_732_900_000))
        #expect(info.title != nil && info.body != nil)
        #expect(info.campaignId == nil && info.announcementId == nil)
        #expect((info.rawPayload["type"] as? String) == expected.kind.name)
        #expect(!CometChatPushNotifications.isCampaignNotification(userInfo: payload))
    }

    @Test("The campaign fixture parses to a campaign")
    func campaign() throws {
        let payload = try contractPayload("campaign")
        let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: payload))
        #expect(info.kind == .campaign)
        #expect(info.campaignId == "spring-sale")
        #expect(info.announcementId == "ann-7")
        #expect(info.title == "Spring sale")
        #expect(info.body == "50% off stickers this week")
        #expect(info.senderUid == nil && info.receiverType == .unknown)
        #expect(CometChatPushNotifications.isCampaignNotification(userInfo: payload))
    }

    @Test("The read fixture is a read push: it clears its conversation's notifications and sets the badge")
    func read() async throws {
        let payload = try contractPayload("read")
        let read = try #require(ReadSyncPush(payload))
        #expect(read.conversationId == "alice_user_bob" && read.unreadCount == 2)
        #expect(read.pushId == "0b9e4d2c-7a13-4f6e-8c25-91d3e6a7b480")
        // It is no chat, call or campaign push.
        #expect(CometChatPushNotifications.parseNotificationInfo(from: payload)?.kind != .chat)
        #expect(!CometChatPushNotifications.isCampaignNotification(userInfo: payload))

        // On a device with a push of that conversation (thread-id alice_user_bob) and one of a
        // group, the read push leaves only the group's, and the badge at the fixture's count.
        let device = SimulatedDevice(permission: .authorized)
        let app = device.launch { $0.initialize(config: notificationConfig()) }
        app.sdk.setSession(uid: "bob", authToken: "bob-token")
        #expect(await device.settle())
        app.sendToBackground()
        device.deliver(try contractPayload("chat-user"))
        device.deliver(try contractPayload("chat-group"))
        #expect(device.notificationCenter.shownNotifications.count == 2 && device.badge == 3)
        let push = device.deliverBackground(payload)
        #expect(await device.settle())
        #expect(push.outcome == .delivered && push.result == .newData)
        #expect(device.notificationCenter.shownNotifications.map(\.threadIdentifier) == ["group_team"])
        #expect(device.badge == 2)
    }

    @Test("The read-counted fixture carries the service's total: unreadCount, else aps.badge")
    func readCounted() throws {
        var payload = try contractPayload("read-counted")
        #expect(try #require(ReadSyncPush(payload)).unreadCount == 1)
        payload["unreadCount"] = nil
        #expect(try #require(ReadSyncPush(payload)).unreadCount == 1, "aps.badge when unreadCount is absent")
        payload["aps"] = ["content-available": 1, "badge": -1]
        #expect(try #require(ReadSyncPush(payload)).unreadCount == nil)
    }

    @Test("The edit and deletion fixtures are action pushes of message 1042, not new messages")
    func actionPushes() throws {
        let edited = try #require(MessageChange(actionPush: try contractPayload("chat-edited")))
        #expect(
            edited
                == MessageChange(
                    kind: .edited, conversationId: "alice_user_bob", messageId: "1042",
                    notificationId: "msg-IW2lS1kxptN8yo4plTNh_gLGgLvYtII0P1COMujpzDs", title: "Alice", body: "See you at 6",
                    at: Date(timeIntervalSince1970: 1_732_900_060)))
        let deleted = try #require(MessageChange(actionPush: try contractPayload("chat-deleted")))
        #expect(deleted.kind == .deleted && deleted.messageId == "1042" && deleted.conversationId == "alice_user_bob")
        #expect(deleted.notificationId == "msg-IW2lS1kxptN8yo4plTNh_gLGgLvYtII0P1COMujpzDs" && deleted.body == nil)
        // A message, a read push, an unknown action and an action without its message are not.
        #expect(MessageChange(actionPush: try contractPayload("chat-user")) == nil)
        #expect(MessageChange(actionPush: try contractPayload("read")) == nil)
        var unknown = try contractPayload("chat-edited")
        unknown["action"] = "pinned"
        #expect(MessageChange(actionPush: unknown) == nil)
        unknown["action"] = "read"
        #expect(MessageChange(actionPush: unknown) == nil)
        var untagged = try contractPayload("chat-deleted")
        untagged["tag"] = nil
        #expect(MessageChange(actionPush: untagged) == nil)
    }

    @Test("Every fixture of Contract/payloads is covered by a table above")
    func everyFixtureCovered() {
        let covered = Set(
            (Self.chatFixtures + Self.callFixtures).map(\.fixture) + ["campaign", "read", "read-counted", "chat-edited", "chat-deleted"])
        #expect(Set(contractPayloadNames()).subtracting(covered).isEmpty)
        #expect(contractPayloadNames().count >= 17)
    }

    static let malformed: [String] = {
        let directory = repositoryRoot.appendingPathComponent("Contract/payloads/malformed")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test("Malformed variants parse to what their fixture expects", arguments: malformed)
    func malformedVariant(_ file: String) throws {
        let url = repositoryRoot.appendingPathComponent("Contract/payloads/malformed/\(file)")
        let fixture = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let payload = try #require(fixture["payload"] as? [String: Any])
        let expect = try #require(fixture["expect"] as? [String: Any])
        let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: payload))
        for (field, wanted) in expect {
            let actual = Self.field(field, of: info)
            let wantedText = wanted is NSNull ? "nil" : "\(wanted)"
            #expect(actual == wantedText, "\(file): \(field)")
        }
    }

    /// A field of `info` as text, for comparison with a fixture's `expect`.
    static func field(_ name: String, of info: CometChatNotificationInfo) -> String {
        let value: String? =
            switch name {
            case "kind": info.kind.name
            case "receiverType": info.receiverType.name
            case "senderUid": info.senderUid
            case "senderName": info.senderName
            case "senderAvatar": info.senderAvatar
            case "receiverId": info.receiverId
            case "receiverName": info.receiverName
            case "receiverAvatar": info.receiverAvatar
            case "conversationId": info.conversationId
            case "title": info.title
            case "body": info.body
            case "messageId": info.messageId
            case "parentId": info.parentId
            case "sentAtMs": info.sentAt.map { String(Int(($0.timeIntervalSince1970 * 1000).rounded())) }
            case "unreadMessageCount": info.unreadMessageCount.map(String.init)
            case "callAction": info.callAction
            case "sessionId": info.sessionId
            case "callType": info.callType
            case "campaignId": info.campaignId
            case "announcementId": info.announcementId
            default: "unknown field \(name)"
            }
        return value ?? "nil"
    }

    /// A payload and the count it must give; `Any` is not `Sendable`, the values are constants.
    struct PayloadCase: @unchecked Sendable, CustomTestStringConvertible {
        var name: String
        var payload: Any
        var count: Int? = nil
        var testDescription: String { name }
    }

    @Test(
        "Only non-dictionary input gives nil",
        arguments: [
            PayloadCase(name: "a string", payload: "hello"), PayloadCase(name: "a number", payload: 42),
            PayloadCase(name: "an array", payload: [1, 2]), PayloadCase(name: "JSON text of an array", payload: "[1]"),
            PayloadCase(name: "null", payload: NSNull()),
        ])
    func notDictionaryLike(_ input: PayloadCase) {
        #expect(CometChatPushNotifications.parseNotificationInfo(from: input.payload) == nil)
    }

    @Test("Dictionary-like input of every shape gives an info")
    func dictionaryLike() throws {
        let text = #"{"type":"chat","sender":"alice","unreadMessageCount":2}"#
        for payload in [
            text as Any, Data(text.utf8), NSDictionary(dictionary: ["type": "chat", "sender": "alice"]),
            ["type": "chat", "sender": "alice"] as [AnyHashable: Any], [:] as [String: Any],
        ] {
            let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: payload))
            #expect(info.kind == (info.rawPayload.isEmpty ? .other : .chat))
        }
        #expect(CometChatPushNotifications.parseNotificationInfo(from: text)?.unreadMessageCount == 2)
    }

    @Test("Keys that are not text are skipped, not the object: every text key of it is still read, at every level")
    func keysThatAreNotText() throws {
        let sender: [AnyHashable: Any] = [AnyHashable(1): "one", "uid": "alice", "name": "Alice"]
        let receiver = NSDictionary(dictionary: [AnyHashable(2): "two", "guid": "g1", "name": "Team"])
        let message: [AnyHashable: Any] = [
            AnyHashable(3.5): "x", "sender": sender, "receiver": receiver, "receiverType": "group", "id": "m7",
        ]
        let payload: [AnyHashable: Any] = [
            AnyHashable(0): "zero", "type": "chat", "message": message,
            "aps": [AnyHashable(4): true, "alert": ["title": "Alice", "body": "Hi"] as [AnyHashable: Any]] as [AnyHashable: Any],
        ]
        let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: payload))
        #expect(info.kind == .chat)
        #expect(info.senderUid == "alice")
        #expect(info.senderName == "Alice")
        #expect(info.receiverId == "g1")
        #expect(info.receiverName == "Team")
        #expect(info.receiverType == .group)
        #expect(info.messageId == "m7")
        #expect(info.title == "Alice")
        #expect(info.body == "Hi")
        #expect(info.rawPayload[AnyHashable(0)] as? String == "zero", "rawPayload keeps every key as given")
    }

    @Test(
        "Counts: number or text, top level or under payload; negative and non-numeric ignored",
        arguments: [
            PayloadCase(name: "number", payload: ["unreadMessageCount": 5], count: 5),
            PayloadCase(name: "text", payload: ["unreadMessageCount": "5"], count: 5),
            PayloadCase(name: "padded text", payload: ["unreadMessageCount": " 12 "], count: 12),
            PayloadCase(name: "zero", payload: ["unreadMessageCount": 0], count: 0),
            PayloadCase(name: "under payload", payload: ["payload": ["unreadMessageCount": 7]], count: 7),
            PayloadCase(name: "text under payload", payload: ["payload": ["unreadMessageCount": "7"]], count: 7),
            PayloadCase(name: "negative", payload: ["unreadMessageCount": -1]),
            PayloadCase(name: "negative text", payload: ["unreadMessageCount": "-3"]),
            PayloadCase(name: "words", payload: ["unreadMessageCount": "five"]),
            PayloadCase(name: "too large", payload: ["unreadMessageCount": "99999999999999999999999"]),
            PayloadCase(name: "infinity", payload: ["unreadMessageCount": Double.infinity]),
            PayloadCase(name: "nan text", payload: ["unreadMessageCount": "nan"]),
            PayloadCase(name: "boolean", payload: ["unreadMessageCount": true]),
            PayloadCase(name: "array", payload: ["unreadMessageCount": [5]]),
        ])
    func counts(_ input: PayloadCase) throws {
        let payload = try #require(input.payload as? [String: Any])
        #expect(CometChatNotificationInfo(rawPayload: payload).unreadMessageCount == input.count)
    }
}
