import Foundation

/// A delivered notification, in the SDK's own terms (`UNNotification` on iOS).
public struct PNNotification: @unchecked Sendable {
    // @unchecked: `userInfo` holds the property-list values of a push payload and is never mutated.

    /// The request's identifier (the `apns-id` for remote notifications).
    public var identifier: String
    /// The payload: `aps` and the keys next to it.
    public var userInfo: [AnyHashable: Any]
    /// The category the notification was sent with (`aps.category`), or `""`.
    public var categoryIdentifier: String
    /// The thread it is grouped in (`aps.thread-id`: the conversation id of a chat push), or `""`.
    public var threadIdentifier: String

    /// Creates a notification.
    public init(
        identifier: String, userInfo: [AnyHashable: Any], categoryIdentifier: String = "", threadIdentifier: String = ""
    ) {
        self.identifier = identifier
        self.userInfo = userInfo
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
    }
}

/// What the user did with a notification (`UNNotificationResponse` on iOS).
public struct PNNotificationResponse: Sendable {
    /// The user's action.
    public enum Action: Sendable, Equatable {
        /// Tapped the notification (`UNNotificationDefaultActionIdentifier`).
        case open
        /// Dismissed it; only reported for categories with a custom dismiss action.
        case dismiss
        /// Typed text in a text-input action (`UNTextInputNotificationResponse`).
        case textInput(actionIdentifier: String, text: String)
        /// Chose another action of the notification's category.
        case custom(String)
    }

    /// The notification the user acted on.
    public var notification: PNNotification
    /// The action.
    public var action: Action

    /// Creates a response.
    public init(notification: PNNotification, action: Action) {
        self.notification = notification
        self.action = action
    }
}
