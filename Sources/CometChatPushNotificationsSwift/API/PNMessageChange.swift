import Foundation

/// A message in one of the user's conversations was edited or deleted: what the delegate hears
/// (``CometChatPushNotificationsDelegate/didEditMessage(_:)``,
/// ``CometChatPushNotificationsDelegate/didDeleteMessage(_:)``), so that a chat list can refresh.
///
/// The SDK has already updated the device's notifications: an edited message's notification, if
/// it was still in Notification Center, shows the new text; a deleted message's is gone.
#if canImport(ObjectiveC)
@objc(PNMessageChange) @objcMembers
#endif
public final class PNMessageChange: NSObject, Sendable {
    /// The conversation, as chat pushes name it (`alice_user_bob`, `group_team`).
    public let conversationId: String
    /// The message's id (the `tag` of its push).
    public let messageId: String
    /// An edit's new title, as the message's push would show it; `nil` for a deletion.
    public let title: String?
    /// An edit's new text, as the message's push would show it; `nil` for a deletion.
    public let body: String?
    /// When the message was edited or deleted, when the service said.
    public let changedAt: Date?
    /// Whether the message's notification on this device was replaced (an edit) or removed (a
    /// deletion). `false` when it was no longer in Notification Center, or never was.
    public let notificationChanged: Bool

    init(_ change: MessageChange, notificationChanged: Bool) {
        conversationId = change.conversationId
        messageId = change.messageId ?? ""
        title = change.kind == .edited ? change.title : nil
        body = change.kind == .edited ? change.body : nil
        changedAt = change.at
        self.notificationChanged = notificationChanged
    }

    /// A one-line summary without message text, for logs.
    public override var description: String {
        "PNMessageChange(conversationId: \(conversationId), messageId: \(messageId), notificationChanged: \(notificationChanged))"
    }
}
