import Foundation
import UserNotifications
import CometChatPushNotificationsChat

/// The Notification Service Extension: delivered receipts, the sender's avatar, campaign images
/// and plain text in place of Markdown all come from the base class. The App Group comes from
/// `CometChatExtensionGroupID` in this target's Info.plist.
class NotificationService: CometChatNotificationServiceExtension {
    /// Sets the badge on every delivered notification, also when the payload carries
    /// `unreadMessageCount` as a string.
    override func finalizeContent(_ content: UNMutableNotificationContent) -> UNMutableNotificationContent {
        if let count = Self.unreadCount(content.userInfo["unreadMessageCount"]) {
            content.badge = NSNumber(value: count)
        }
        return content
    }

    private static func unreadCount(_ value: Any?) -> Int? {
        let count = (value as? Int) ?? (value as? String).flatMap { Int($0) }
        guard let count, count >= 0 else { return nil }
        return count
    }
}
