import Foundation

/// The fields the parser reads out of a payload (see ``CometChatNotificationInfo`` for each).
struct NotificationFields: Sendable, Equatable {
    var kind: CometChatNotificationKind = .other
    var senderUid: String?
    var senderName: String?
    var senderAvatar: String?
    var receiverId: String?
    var receiverName: String?
    var receiverAvatar: String?
    var receiverType: CometChatReceiverType = .unknown
    var conversationId: String?
    var title: String?
    var body: String?
    var messageId: String?
    var parentId: String?
    var sentAt: Date?
    var unreadMessageCount: Int?
    var callAction: String?
    var sessionId: String?
    var callType: String?
    var campaignId: String?
    var announcementId: String?
    var pushId: String?

    init() {}

    init(_ info: CometChatNotificationInfo) {
        kind = info.kind
        senderUid = info.senderUid
        senderName = info.senderName
        senderAvatar = info.senderAvatar
        receiverId = info.receiverId
        receiverName = info.receiverName
        receiverAvatar = info.receiverAvatar
        receiverType = info.receiverType
        conversationId = info.conversationId
        title = info.title
        body = info.body
        messageId = info.messageId
        parentId = info.parentId
        sentAt = info.sentAt
        unreadMessageCount = info.unreadMessageCount
        callAction = info.callAction
        sessionId = info.sessionId
        callType = info.callType
        campaignId = info.campaignId
        announcementId = info.announcementId
        pushId = info.pushId
    }
}
