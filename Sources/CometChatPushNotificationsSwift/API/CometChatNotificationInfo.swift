import Foundation

/// What the SDK read out of a push payload.
///
/// ``CometChatPushNotifications/parseNotificationInfo(from:)`` builds it; ``rawPayload`` keeps
/// everything the push carried. Every field is optional in practice: a payload may lack it or
/// carry it with an unusable type, and the parser then leaves it `nil`.
#if canImport(ObjectiveC)
@objc(PNNotificationInfo) @objcMembers
#endif
public final class CometChatNotificationInfo: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init; `rawPayload` holds property-list values only.

    /// Chat, call, campaign or other.
    public let kind: CometChatNotificationKind
    /// The sender's uid (`sender`, or the legacy `senderUid`).
    public let senderUid: String?
    /// The sender's display name.
    public let senderName: String?
    /// The sender's avatar URL, as text.
    public let senderAvatar: String?
    /// The receiver's id: the logged-in user's uid, or the group's guid.
    public let receiverId: String?
    /// The receiver's display name.
    public let receiverName: String?
    /// The receiver's avatar or group icon URL, as text.
    public let receiverAvatar: String?
    /// User or group (inferred from `conversationId` when the payload does not say).
    public let receiverType: CometChatReceiverType
    /// The conversation, such as `user1_user_user2` or `group_guid1`.
    public let conversationId: String?
    /// The notification's title (the payload's `title`, else `aps.alert.title`).
    public let title: String?
    /// The notification's text (the payload's `body`, else `aps.alert.body`).
    public let body: String?
    /// The message id (the payload's `tag`).
    public let messageId: String?
    /// The thread's parent message id, for replies in a thread.
    public let parentId: String?
    /// When the message was sent.
    public let sentAt: Date?
    /// Unread messages across all conversations, when the payload carries a usable count.
    public let unreadMessageCount: Int?
    /// For calls: `initiated`, `ongoing`, `unanswered`, `rejected`, `busy`, `cancelled` or `ended`.
    public let callAction: String?
    /// For calls: the call's session id.
    public let sessionId: String?
    /// For calls: `audio` or `video`.
    public let callType: String?
    /// For campaigns: the campaign id.
    public let campaignId: String?
    /// For campaigns: the announcement id (`announcementId`, or `id`).
    public let announcementId: String?
    /// The id a self-hosted push service gave this push (`pushId`, one per device push): the SDK
    /// echoes it in delivered receipts, quick replies and the opened call, so the service's trace
    /// follows the push. `nil` in pushes from CometChat's hosted service.
    public let pushId: String?
    /// The text the user typed in the Reply action, when this info comes from a reply that no
    /// product sent.
    public let replyText: String?
    /// The whole payload, as it arrived.
    public let rawPayload: [AnyHashable: Any]

    /// Reads `rawPayload` the way ``CometChatPushNotifications/parseNotificationInfo(from:)`` does.
    public convenience init(rawPayload: [AnyHashable: Any]) {
        self.init(fields: NotificationParser.parse(rawPayload), rawPayload: rawPayload, replyText: nil)
    }

    init(fields: NotificationFields, rawPayload: [AnyHashable: Any], replyText: String?) {
        kind = fields.kind
        senderUid = fields.senderUid
        senderName = fields.senderName
        senderAvatar = fields.senderAvatar
        receiverId = fields.receiverId
        receiverName = fields.receiverName
        receiverAvatar = fields.receiverAvatar
        receiverType = fields.receiverType
        conversationId = fields.conversationId
        title = fields.title
        body = fields.body
        messageId = fields.messageId
        parentId = fields.parentId
        sentAt = fields.sentAt
        unreadMessageCount = fields.unreadMessageCount
        callAction = fields.callAction
        sessionId = fields.sessionId
        callType = fields.callType
        campaignId = fields.campaignId
        announcementId = fields.announcementId
        pushId = fields.pushId
        self.replyText = replyText
        self.rawPayload = rawPayload
    }

    /// The same info, carrying the text of a reply.
    func withReplyText(_ text: String) -> CometChatNotificationInfo {
        CometChatNotificationInfo(fields: NotificationFields(self), rawPayload: rawPayload, replyText: text)
    }

    /// A one-line summary without message text, for logs.
    public override var description: String {
        "CometChatNotificationInfo(kind: \(kind.name), receiverType: \(receiverType.name), "
            + "conversationId: \(conversationId ?? "nil"), messageId: \(messageId ?? "nil"))"
    }
}
