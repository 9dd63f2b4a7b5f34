import Foundation

/// Reads CometChat push payloads (Contract/WIRE-CONTRACT.md §4) into ``NotificationFields``.
///
/// Tolerant by design: keys sit at the top level next to `aps`; `message` may be an object or
/// JSON text; the caller may be `sender` or the legacy `senderUid`; `unreadMessageCount` may be
/// at the top level or under `payload`; a value of the wrong type is ignored, field by field.
enum NotificationParser {
    private typealias R = PayloadReader

    /// The fields of `payload`; an unrecognised payload gives kind `.other` and empty fields.
    static func parse(_ payload: [AnyHashable: Any]) -> NotificationFields {
        parse(object: R.textKeyed(payload))
    }

    /// The fields of a payload whose keys are text. Every lookup below is by a text key: on a
    /// `[AnyHashable: Any]` each one would box and compare `AnyHashable`s, which costs more than
    /// making this view once.
    private static func parse(object payload: [String: Any]) -> NotificationFields {
        var out = NotificationFields()
        let message = R.object(payload["message"])
        let aps = R.object(payload["aps"])
        let alert = aps?["alert"]
        let alertObject = R.object(alert)
        let type = R.string(payload["type"])?.lowercased()
        let source = R.string(payload["source"])?.lowercased()

        out.senderUid =
            R.string(payload["sender"]) ?? R.string(payload["senderUid"])
            ?? entityId(message?["sender"], keys: ["uid"])
        out.senderName = R.string(payload["senderName"]) ?? entityText(message?["sender"], key: "name")
        out.senderAvatar = R.string(payload["senderAvatar"]) ?? entityText(message?["sender"], key: "avatar")
        out.receiverId = R.string(payload["receiver"]) ?? entityId(message?["receiver"], keys: ["guid", "uid"])
        out.receiverName = R.string(payload["receiverName"]) ?? entityText(message?["receiver"], key: "name")
        out.receiverAvatar =
            R.string(payload["receiverAvatar"])
            ?? entityText(message?["receiver"], key: "icon") ?? entityText(message?["receiver"], key: "avatar")
        out.conversationId = R.string(payload["conversationId"]) ?? R.string(message?["conversationId"])
        out.receiverType = receiverType(
            R.string(payload["receiverType"]) ?? R.string(message?["receiverType"]),
            conversationId: out.conversationId)
        out.title = R.string(payload["title"]) ?? R.string(alertObject?["title"])
        out.body =
            R.string(payload["body"]) ?? R.string(alertObject?["body"])
            ?? (alertObject == nil ? R.string(alert) : nil)
        out.messageId = R.string(payload["tag"]) ?? R.string(payload["messageId"]) ?? R.string(message?["id"])
        out.parentId = threadParent(R.string(payload["parentId"]) ?? R.string(message?["parentId"]))
        out.sentAt = date(payload["sentAt"]) ?? date(message?["sentAt"])
        out.unreadMessageCount =
            R.count(payload["unreadMessageCount"])
            ?? R.count(R.object(payload["payload"])?["unreadMessageCount"])
        out.callAction = R.string(payload["callAction"])?.lowercased()
        out.sessionId = R.string(payload["sessionId"]) ?? R.string(message?["sessionId"])
        out.callType = R.string(payload["callType"])?.lowercased()
        out.campaignId = R.string(payload["campaignId"])
        out.pushId = R.string(payload["pushId"])
        out.kind = kind(type: type, source: source, fields: out)
        out.announcementId =
            R.string(payload["announcementId"])
            ?? (out.kind == .campaign ? R.string(payload["id"]) : nil)
        return out
    }

    private static func kind(type: String?, source: String?, fields: NotificationFields) -> CometChatNotificationKind {
        if source == "campaign" || type == "campaign" { return .campaign }
        switch type {
        case "chat": return .chat
        case "call": return .call
        case nil where fields.callAction != nil && fields.sessionId != nil: return .call
        case nil where fields.campaignId != nil: return .campaign
        default: return .other
        }
    }

    private static func receiverType(_ text: String?, conversationId: String?) -> CometChatReceiverType {
        switch text?.lowercased() {
        case "user": return .user
        case "group": return .group
        default:
            guard let conversationId else { return .unknown }
            if conversationId.hasPrefix("group_") { return .group }
            return conversationId.contains("_user_") ? .user : .unknown
        }
    }

    /// An id given as text, or as an object with one of `keys` (`message.sender.uid`).
    private static func entityId(_ value: Any?, keys: [String]) -> String? {
        if let text = R.string(value) { return text }
        guard let object = R.object(value) else { return nil }
        return keys.lazy.compactMap { R.string(object[$0]) }.first
    }

    private static func entityText(_ value: Any?, key: String) -> String? {
        R.string(R.object(value)?[key])
    }

    /// CometChat marks "not in a thread" with parent id 0.
    private static func threadParent(_ id: String?) -> String? { id == "0" ? nil : id }

    /// Epoch time in milliseconds (the payload's `sentAt`) or seconds (a message object's).
    private static func date(_ value: Any?) -> Date? {
        guard let number = R.integer(value), number > 0 else { return nil }
        let seconds = number >= 100_000_000_000 ? Double(number) / 1000 : Double(number)
        return Date(timeIntervalSince1970: seconds)
    }
}
