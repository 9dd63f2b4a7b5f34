#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerSupport

/// Builds the push payloads of Contract/WIRE-CONTRACT.md §4: the §4 keys at the top level next to
/// `aps`; `aps` with `alert`, `badge` (from the count the caller gives), `sound`,
/// `category`, `thread-id`, `mutable-content: 1`, and (``Urgency``) `interruption-level` and
/// `relevance-score`.
enum PayloadBuilder {
    /// The notification category that enables the SDK's Reply action.
    static let messageCategory = "MessageCategory"

    /// `user1_user_user2` (uids sorted) or `group_<guid>`.
    static func conversationId(sender: String, receiver: String, receiverType: String) -> String {
        if receiverType == "group" { return "group_\(receiver)" }
        let pair = [sender, receiver].sorted()
        return "\(pair[0])_user_\(pair[1])"
    }

    /// The title and body a chat push shows: the group's name (or the sender's) and the text
    /// (`Sender: text` in a group; a reaction and an action say what happened), the body in
    /// `renderer`'s language (``PushTemplates``).
    static func alert(of event: ChatEvent, renderer: PushTemplates.Renderer = .standard) -> (title: String, body: String) {
        let (title, body, _) = alertParts(of: event, renderer: renderer)
        return (title, body)
    }

    /// ``alert(of:renderer:)`` and, when the app localizes on the device, the body's `loc-key`
    /// and `loc-args` (a group message and a reaction; a direct message's body is its text).
    static func alertParts(
        of event: ChatEvent, renderer: PushTemplates.Renderer
    ) -> (
        title: String, body: String, keys: [String: Any]?
    ) {
        let isGroup = event.receiverType == "group"
        let title = event.title ?? (isGroup ? event.receiver.name : event.sender.name)
        switch event.category {
        case .message:
            guard isGroup else { return (title, event.text, nil) }
            let values = ["sender": event.sender.name, "text": event.text, "group": event.receiver.name]
            return (title, renderer.text(.groupMessage, values), renderer.localizationKeys(.groupMessage, values))
        case .reaction:
            let values = ["sender": event.sender.name, "reaction": event.reaction ?? "", "text": event.text]
            return (title, renderer.text(.reaction, values), renderer.localizationKeys(.reaction, values))
        case .action:
            return (title, event.text, nil)
        }
    }

    /// A chat push; `urgency` sets its `interruption-level` and `relevance-score`; `quiet`
    /// (quiet hours) makes it passive and silent; `renderer` writes its text.
    static func chat(
        _ event: ChatEvent, badge: Int?, quiet: Bool = false, urgency: Urgency? = nil, renderer: PushTemplates.Renderer = .standard
    ) -> [String: Any] {
        let (title, body, keys) = alertParts(of: event, renderer: renderer)
        let conversation = conversationId(sender: event.sender.id, receiver: event.receiver.id, receiverType: event.receiverType)
        var payload = parties(event.sender, event.receiver, event.receiverType)
        payload["type"] = "chat"
        payload["title"] = title
        payload["body"] = body
        payload["conversationId"] = conversation
        payload["tag"] = event.id
        payload["sentAt"] = String(event.sentAt)
        if let parentId = event.parentId { payload["parentId"] = parentId }
        if let custom = event.custom { payload["custom"] = custom }
        if let message = event.message { payload["message"] = message }
        if let badge { payload["unreadMessageCount"] = String(badge) }
        var aps: [String: Any] = [
            "alert": alertObject(title: title, body: body, keys: keys), "sound": "default", "category": messageCategory,
            "thread-id": conversation, "mutable-content": 1,
        ]
        if let badge { aps["badge"] = badge }
        urgency?.apply(to: &aps)
        if quiet { Self.quiet(&aps) }
        payload["aps"] = aps
        return payload
    }

    /// `aps.alert`: title and body, and the `loc-key`/`loc-args` when there are any.
    static func alertObject(title: String, body: String, keys: [String: Any]?) -> [String: Any] {
        var alert: [String: Any] = ["title": title, "body": body]
        for (key, value) in keys ?? [:] { alert[key] = value }
        return alert
    }

    /// Quiet hours: `interruption-level: passive` (to Notification Center without lighting the
    /// screen) and no sound.
    static func quiet(_ aps: inout [String: Any]) {
        aps["interruption-level"] = "passive"
        aps["sound"] = nil
    }

    /// A call push. VoIP tokens get it as a PushKit dictionary (`aps` without an alert);
    /// alert tokens (users without a VoIP token) get an alert; `quiet` (quiet hours that
    /// include calls) makes that alert passive and silent; `urgency` sets that alert's
    /// `interruption-level` and `relevance-score` (a VoIP push has none).
    /// `renderer` writes the body ("AUDIO CALL" in English) in the token's language.
    static func call(
        _ event: CallEvent, voip: Bool, badge: Int?, quiet: Bool = false, urgency: Urgency? = nil,
        renderer: PushTemplates.Renderer = .standard
    ) -> [String: Any] {
        let isGroup = event.receiverType == "group"
        let title = isGroup ? event.receiver.name : event.sender.name
        let name: PushTemplates.Name = event.callType == "video" ? .callVideo : .callAudio
        let values = ["sender": event.sender.name]
        let body = renderer.text(name, values)
        var payload = parties(event.sender, event.receiver, event.receiverType)
        payload["type"] = "call"
        payload["title"] = title
        payload["body"] = body
        payload["callAction"] = event.callAction
        payload["sessionId"] = event.sessionId
        payload["callType"] = event.callType
        payload["conversationId"] = conversationId(sender: event.sender.id, receiver: event.receiver.id, receiverType: event.receiverType)
        payload["tag"] = event.sessionId
        payload["sentAt"] = String(event.sentAt)
        if voip {
            payload["aps"] = [String: Any]()
        } else {
            var aps: [String: Any] = [
                "alert": alertObject(title: title, body: body, keys: renderer.localizationKeys(name, values)), "sound": "default",
                "thread-id": payload["conversationId"] ?? "",
                "mutable-content": 1,
            ]
            if let badge { aps["badge"] = badge }
            urgency?.apply(to: &aps)
            if quiet { Self.quiet(&aps) }
            payload["aps"] = aps
        }
        return payload
    }

    /// A campaign push.
    static func campaign(_ event: CampaignEvent, badge: Int?) -> [String: Any] {
        var payload: [String: Any] = [
            "source": "campaign", "id": event.id, "announcementId": event.id, "campaignId": event.campaignId,
            "title": event.title, "body": event.body, "sentAt": String(event.sentAt),
        ]
        if let url = event.url { payload["url"] = url }
        if let imageUrl = event.imageUrl { payload["imageUrl"] = imageUrl }
        if let custom = event.custom { payload["custom"] = custom }
        var aps: [String: Any] = ["alert": ["title": event.title, "body": event.body], "sound": "default", "mutable-content": 1]
        if let badge { aps["badge"] = badge }
        payload["aps"] = aps
        return payload
    }

    /// The payload with `pushId` (the job's id, one per device push) added at the top level,
    /// next to `aps`: the SDK echoes it in receipts, `opened` and quick replies (the trace).
    /// The payload is encoded once per recipient; the id is spliced in after its `{`, so a
    /// large send does not encode every job's payload again.
    static func stamp(_ payload: Data, pushId: String) -> Data {
        // The id as a JSON string literal: the encoded one-element array without its brackets.
        let literal = ((try? JSONCodec.encode([pushId])) ?? Array("[\"\"]".utf8)).dropFirst().dropLast()
        var stamped = Data("{\"pushId\":".utf8)
        stamped.append(contentsOf: literal)
        // `payload` is an encoded object: `{}` or `{"key":…}`.
        if payload.count > 2 { stamped.append(UInt8(ascii: ",")) }
        stamped.append(payload.dropFirst())
        return stamped
    }

    private static func parties(_ sender: Party, _ receiver: Party, _ receiverType: String) -> [String: Any] {
        var payload: [String: Any] = [
            "sender": sender.id, "senderName": sender.name, "receiver": receiver.id, "receiverName": receiver.name,
            "receiverType": receiverType,
        ]
        if let avatar = sender.avatar { payload["senderAvatar"] = avatar }
        if let avatar = receiver.avatar { payload["receiverAvatar"] = avatar }
        return payload
    }
}
