#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parsed `POST /notifications/push/v1/send` body.
struct SendRequest {
    enum Event {
        case chat(ChatEvent)
        case call(CallEvent)
        case campaign(CampaignEvent)
    }

    struct Recipient {
        var uid: String
        /// The badge the send gives (`badge`, else `unreadMessageCount`): it always wins.
        var badge: Int?
        /// `badge: "auto"`: the service's count (issue 30). Neither a number nor `auto`: the
        /// app's default (``AppBadge``) decides.
        var autoBadge = false
    }

    /// `"recipients": {"group": "<guid>", "badge": <n> | "auto"}` (issue 31): the group's members
    /// as the service keeps them, taken when the send is accepted, each with the same badge.
    struct GroupTarget {
        /// The group.
        var guid: String
        /// The badge every member's push gives (`badge`, else `unreadMessageCount`).
        var badge: Int?
        /// `badge: "auto"`: each member's count.
        var autoBadge = false

        /// A member as a recipient of the send.
        func recipient(_ uid: String) -> Recipient {
            Recipient(uid: uid, badge: badge, autoBadge: autoBadge)
        }
    }

    /// The most recipients in one request, and in a group send made while the request waits
    /// (a larger group is expanded in the background).
    static let maxRecipients = 1_000

    var event: Event
    /// The recipients named (for a group send: the members, once they are known).
    var recipients: [Recipient]
    /// The group the send names instead of recipients.
    var group: GroupTarget?
    /// Seconds APNs keeps an alert push for an offline device (`apns-expiration`).
    var ttlSeconds: Int64

    static func parse(_ body: JSONObject, now: Date) throws(APIError) -> SendRequest {
        let type = try body.string("type", maxLength: 16)
        let nowMs = Int64(now.timeIntervalSince1970 * 1000)
        let event: Event
        switch type {
        case "chat": event = .chat(try chat(body.object("message"), nowMs: nowMs))
        case "call": event = .call(try call(body.object("call"), nowMs: nowMs))
        case "campaign": event = .campaign(try campaign(body.object("campaign"), nowMs: nowMs))
        default: throw .badRequest("The type field must be chat, call or campaign.", field: "type", problem: type)
        }
        var recipients: [Recipient] = []
        var group: GroupTarget?
        if body["recipients"] is [String: Any] {
            group = try self.group(body.object("recipients"))
        } else {
            guard body["recipients"] is [Any] else {
                throw .badRequest(
                    "The recipients field must be an array of recipients ({uid, badge?}) or a group ({group, badge?}).",
                    field: "recipients", problem: "not an array or an object")
            }
            var seen = Set<String>()
            for item in try body.objects("recipients", maxCount: maxRecipients) {
                let uid = try item.string("uid", maxLength: 128)
                let (badge, autoBadge) = try self.badge(item)
                if seen.insert(uid).inserted {
                    recipients.append(Recipient(uid: uid, badge: badge, autoBadge: autoBadge))
                }
            }
        }
        let ttl = try body.int("ttlSeconds", in: 0...2_419_200) ?? 86_400
        return SendRequest(event: event, recipients: recipients, group: group, ttlSeconds: ttl)
    }

    /// `recipients: {group, badge?}`: the group's id and the badge of every member.
    private static func group(_ object: JSONObject) throws(APIError) -> GroupTarget {
        let guid = try object.string("group", maxLength: 128)
        try Validate.identifier(guid, field: "recipients.group")
        let (badge, autoBadge) = try self.badge(object)
        return GroupTarget(guid: guid, badge: badge, autoBadge: autoBadge)
    }

    /// A recipient's (or a group's) badge: a number (`badge`, else `unreadMessageCount`), or `auto`.
    private static func badge(_ item: JSONObject) throws(APIError) -> (badge: Int?, autoBadge: Bool) {
        let autoBadge = try self.autoBadge(item)
        let explicitBadge = autoBadge ? nil : try item.int("badge", in: 0...999_999)
        let unread = try item.int("unreadMessageCount", in: 0...999_999)
        return (autoBadge ? nil : (explicitBadge ?? unread).map(Int.init), autoBadge)
    }

    /// The uid of the event's sender (a chat message's or a call's; a campaign has none): a
    /// group send never goes to its sender.
    var senderUid: String? {
        switch event {
        case .chat(let chat): return chat.sender.id
        case .call(let call): return call.sender.id
        case .campaign: return nil
        }
    }

    /// Whether a recipient's `badge` is `"auto"` (a number or absent: false; another string: 400).
    private static func autoBadge(_ item: JSONObject) throws(APIError) -> Bool {
        guard let text = item["badge"] as? String else { return false }
        guard text == "auto" else {
            throw .badRequest(
                "The \(item.path).badge field must be an integer in 0...999999 or \"auto\".", field: "\(item.path).badge",
                problem: "not a number or auto")
        }
        return true
    }

    private static func receiverType(_ object: JSONObject) throws(APIError) -> String {
        let value = try object.optionalString("receiverType", maxLength: 16) ?? "user"
        guard value == "user" || value == "group" else {
            throw .badRequest("The receiverType field must be user or group.", field: "\(object.path).receiverType", problem: value)
        }
        return value
    }

    private static func chat(_ object: JSONObject, nowMs: Int64) throws(APIError) -> ChatEvent {
        let categoryText = try object.optionalString("category", maxLength: 16) ?? "message"
        guard let category = ChatEvent.Category(rawValue: categoryText) else {
            throw .badRequest(
                "The message.category field must be message, reaction or action.", field: "message.category", problem: categoryText)
        }
        let kind = try receiverType(object)
        let action = try ChatEvent.Action.parse(object)
        return ChatEvent(
            id: try object.identifier("id", maxLength: 128),
            category: category,
            sender: try Party.parse(object.object("sender"), idKeys: ["uid"]),
            receiver: try Party.parse(object.object("receiver"), idKeys: kind == "group" ? ["guid", "uid"] : ["uid"]),
            receiverType: kind,
            text: try ChatEvent.Action.text(of: object, action: action),
            title: try object.optionalString("title", maxLength: 256),
            sentAt: try object.int("sentAt", in: 0...Int64(1e15)) ?? nowMs,
            parentId: try object.optionalString("parentId", maxLength: 128),
            reaction: try object.optionalString("reaction", maxLength: 64),
            custom: object["custom"],
            message: object["message"],
            mentions: try mentions(object),
            action: action)
    }

    /// `message.mentions`: an optional array of at most 1,000 uids.
    private static func mentions(_ object: JSONObject) throws(APIError) -> Set<String> {
        guard let raw = object["mentions"] else { return [] }
        guard let items = raw as? [Any], items.count <= maxRecipients else {
            throw .badRequest(
                "The message.mentions field must be an array of at most \(maxRecipients) uids.", field: "message.mentions",
                problem: "not an array of uids")
        }
        var uids = Set<String>()
        for (index, item) in items.enumerated() {
            guard let uid = item as? String else {
                throw .badRequest(
                    "Item \(index) of message.mentions must be a uid.", field: "message.mentions[\(index)]", problem: "not a string")
            }
            try Validate.identifier(uid, field: "message.mentions[\(index)]")
            uids.insert(uid)
        }
        return uids
    }

    private static func call(_ object: JSONObject, nowMs: Int64) throws(APIError) -> CallEvent {
        let action = try object.string("callAction", maxLength: 16)
        guard CallEvent.actions.contains(action) else {
            throw .badRequest("The call.callAction field is not a known action.", field: "call.callAction", problem: action)
        }
        let callType = try object.optionalString("callType", maxLength: 16) ?? "audio"
        guard callType == "audio" || callType == "video" else {
            throw .badRequest("The call.callType field must be audio or video.", field: "call.callType", problem: callType)
        }
        let kind = try receiverType(object)
        let sessionId = try object.string("sessionId", maxLength: 128)
        try Validate.identifier(sessionId, field: "call.sessionId")
        return CallEvent(
            sessionId: sessionId, callAction: action, callType: callType,
            sender: try Party.parse(object.object("sender"), idKeys: ["uid"]),
            receiver: try Party.parse(object.object("receiver"), idKeys: kind == "group" ? ["guid", "uid"] : ["uid"]),
            receiverType: kind,
            sentAt: try object.int("sentAt", in: 0...Int64(1e15)) ?? nowMs)
    }

    private static func campaign(_ object: JSONObject, nowMs: Int64) throws(APIError) -> CampaignEvent {
        CampaignEvent(
            id: try object.identifier("id", maxLength: 128),
            campaignId: try object.identifier("campaignId", maxLength: 128),
            title: try object.string("title", maxLength: 256),
            body: try object.string("body", maxLength: 4_000),
            url: try object.optionalString("url", maxLength: 2_048),
            imageUrl: try object.optionalString("imageUrl", maxLength: 2_048),
            sentAt: try object.int("sentAt", in: 0...Int64(1e15)) ?? nowMs,
            custom: object["custom"])
    }
}
