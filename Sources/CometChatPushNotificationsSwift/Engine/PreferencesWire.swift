import Foundation

/// The preferences and read calls of the self-hosted push service (issue 18's wire agreement):
/// paths, bodies, and the preferences object they answer.
enum PreferencesWire {
    static let base = "/notifications/push/v1/preferences"

    /// `PUT …/preferences/mutes` `{"receiverType","receiver","until":<ms>|null}`.
    static func mute(_ type: CometChatReceiverType, _ receiver: String, until: Date?) -> (String, String, [String: Any]) {
        let until: Any = until.map { NSNumber(value: Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? NSNull()
        return ("PUT", base + "/mutes", ["receiverType": type.wireName, "receiver": receiver, "until": until])
    }

    /// `DELETE …/preferences/mutes/{receiverType}/{receiver}`.
    static func unmute(_ type: CometChatReceiverType, _ receiver: String) -> (String, String, [String: Any]?) {
        ("DELETE", base + "/mutes/\(type.wireName)/\(PNPercentEncoding.pathSegment(receiver))", nil)
    }

    /// `PUT …/preferences/groups/{guid}` `{"level"}`.
    static func groupLevel(_ level: PNGroupNotificationLevel, _ guid: String) -> (String, String, [String: Any]) {
        ("PUT", base + "/groups/\(PNPercentEncoding.pathSegment(guid))", ["level": level.wireValue])
    }

    /// `PUT …/preferences/quiet-hours` `{"start","end","includeCalls"}`; `nil` when a time is
    /// not a time of day.
    static func quietHours(start: DateComponents, end: DateComponents, includeCalls: Bool) -> (String, String, [String: Any])? {
        guard let start = clock(start), let end = clock(end) else { return nil }
        return ("PUT", base + "/quiet-hours", ["start": start, "end": end, "includeCalls": includeCalls])
    }

    /// `POST /notifications/push/v1/read` `{"receiverType","receiver","unreadCount"?}`.
    static func read(_ type: CometChatReceiverType, _ receiver: String, unreadCount: Int?) -> (String, String, [String: Any]) {
        var body: [String: Any] = ["receiverType": type.wireName, "receiver": receiver]
        if let unreadCount { body["unreadCount"] = unreadCount }
        return ("POST", "/notifications/push/v1/read", body)
    }

    /// `HH:MM` of a time of day.
    static func clock(_ time: DateComponents) -> String? {
        let hour = time.hour ?? 0
        let minute = time.minute ?? 0
        guard time.hour != nil, (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        return String(format: "%02d:%02d", hour, minute)
    }

    /// The time of day of `HH:MM`.
    static func components(_ text: String) -> DateComponents? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return DateComponents(hour: hour, minute: minute)
    }

    /// The preferences of an answer `{"data": {…}}`; `nil` when it is not one.
    static func preferences(_ body: Data) -> PNNotificationPreferences? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let data = object["data"] as? [String: Any]
        else { return nil }
        let mutes = (data["mutes"] as? [[String: Any]] ?? []).compactMap { item -> PNConversationMute? in
            guard let receiver = PayloadReader.string(item["receiver"]) else { return nil }
            let type: CometChatReceiverType
            switch PayloadReader.string(item["receiverType"]) {
            case "user": type = .user
            case "group": type = .group
            default: return nil
            }
            let until = PayloadReader.integer(item["until"]).map { Date(timeIntervalSince1970: Double($0) / 1000) }
            return PNConversationMute(receiverType: type, receiverId: receiver, until: until)
        }
        let groups = (data["groups"] as? [[String: Any]] ?? []).compactMap { item -> PNGroupNotificationSetting? in
            guard let guid = PayloadReader.string(item["guid"]),
                let level = PayloadReader.string(item["level"]).flatMap(PNGroupNotificationLevel.init(wireValue:))
            else { return nil }
            return PNGroupNotificationSetting(groupId: guid, level: level)
        }
        var quiet: PNQuietHours?
        if let hours = data["quietHours"] as? [String: Any],
            let start = PayloadReader.string(hours["start"]).flatMap(components),
            let end = PayloadReader.string(hours["end"]).flatMap(components)
        {
            quiet = PNQuietHours(
                start: start, end: end, includeCalls: hours["includeCalls"] as? Bool ?? false,
                timeZone: PayloadReader.string(hours["timezone"]))
        }
        return PNNotificationPreferences(
            mutes: mutes, groups: groups, quietHours: quiet, timeZone: PayloadReader.string(data["timezone"]))
    }

    /// The read call's answer: its `conversationId`, and the user's total (`unreadCount`) when
    /// the service counts the badge (issue 30).
    static func readAnswer(_ body: Data) -> (conversationId: String?, unreadCount: Int?) {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let data = object["data"] as? [String: Any]
        else { return (nil, nil) }
        return (PayloadReader.string(data["conversationId"]), PayloadReader.count(data["unreadCount"]))
    }
}

/// A `type: read` background push: the user read a conversation on another device.
struct ReadSyncPush: Equatable, Sendable {
    /// The conversation, as chat pushes name it (their `thread-id`).
    var conversationId: String
    /// The badge to show, when the push carries one (`unreadCount`, else `aps.badge`).
    var unreadCount: Int?
    /// The push's id.
    var pushId: String?

    /// `nil` unless `payload` is a read push with a conversation.
    init?(_ payload: [AnyHashable: Any]) {
        guard PayloadReader.string(payload["type"])?.lowercased() == "read",
            let conversation = PayloadReader.string(payload["conversationId"])
        else { return nil }
        conversationId = conversation
        // A service that counts the badge (issue 30) also puts the total in `aps.badge`: used
        // when the push has no `unreadCount`.
        unreadCount =
            PayloadReader.count(payload["unreadCount"]) ?? PayloadReader.count(PayloadReader.dictionary(payload["aps"])?["badge"])
        pushId = PayloadReader.string(payload["pushId"])
    }

    /// Whether a delivered notification belongs to the conversation: its `thread-id`, or the
    /// `conversationId` of its payload.
    static func belongs(_ notification: PNNotification, to conversationId: String) -> Bool {
        notification.threadIdentifier == conversationId
            || PayloadReader.string(notification.userInfo["conversationId"]) == conversationId
    }
}

extension CometChatReceiverType {
    /// `user` or `group` on the wire.
    var wireName: String { self == .group ? "group" : "user" }
}
