import Foundation

/// The SDK's notification categories: `MessageCategory` with a text-input Reply action.
enum MessageCategory {
    /// The category with the Reply action.
    static var category: PNNotificationCategory {
        PNNotificationCategory(
            identifier: CometChatPushNotifications.messageCategoryIdentifier,
            actions: [
                PNNotificationAction(
                    identifier: CometChatPushNotifications.replyActionIdentifier,
                    title: "Reply",
                    kind: .textInput(buttonTitle: "Send", placeholder: "Message"))
            ])
    }
}
