import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

#if canImport(ObjectiveC)
/// The Chat product's delegate calls. Adopt it on the object you set as
/// `CometChatPushNotifications.shared.delegate`; every method is optional and called on the
/// main queue.
@objc(CometChatPushNotificationsChatDelegate)
public protocol CometChatPushNotificationsChatDelegate: CometChatPushNotificationsDelegate {
    /// A one-to-one chat notification was tapped: open the conversation with `user`.
    @objc(navigateToChatForUser:) optional func navigateToChat(for user: PNUser)
    /// A group chat notification was tapped: open the conversation of `group`.
    @objc(navigateToChatForGroup:) optional func navigateToChat(for group: PNGroup)
    /// The reply `text`, typed in the Reply action of the notification `info`, could not be
    /// sent, even after retries. Where the platform allows, the user also sees a local
    /// notification saying so.
    @objc(didFailToSendReply:toNotification:error:)
    optional func didFailToSendReply(_ text: String, to info: CometChatNotificationInfo, error: PNError)
}
#else
/// The Chat product's delegate calls. Adopt it on the object you set as
/// `CometChatPushNotifications.shared.delegate`; every method is optional (it has a default)
/// and called on the main queue.
public protocol CometChatPushNotificationsChatDelegate: CometChatPushNotificationsDelegate {
    /// A one-to-one chat notification was tapped: open the conversation with `user`.
    func navigateToChat(for user: PNUser)
    /// A group chat notification was tapped: open the conversation of `group`.
    func navigateToChat(for group: PNGroup)
    /// The reply `text`, typed in the Reply action of the notification `info`, could not be
    /// sent, even after retries. Where the platform allows, the user also sees a local
    /// notification saying so.
    func didFailToSendReply(_ text: String, to info: CometChatNotificationInfo, error: PNError)
}

extension CometChatPushNotificationsChatDelegate {
    /// Not implemented: the SDK falls back to `didTapNotification(_:)`.
    public func navigateToChat(for user: PNUser) { PNDelegateProbe.markUnimplemented() }
    /// Not implemented: the SDK falls back to `didTapNotification(_:)`.
    public func navigateToChat(for group: PNGroup) { PNDelegateProbe.markUnimplemented() }
    /// Not implemented.
    public func didFailToSendReply(_ text: String, to info: CometChatNotificationInfo, error: PNError) {
        PNDelegateProbe.markUnimplemented()
    }
}
#endif

/// Calls to the optional methods that answer whether the app implemented them.
extension CometChatPushNotificationsChatDelegate {
    /// Calls `navigateToChat(for:)` with a user; `false` when not implemented.
    func pnNavigateToChat(_ user: PNUser) -> Bool {
        #if canImport(ObjectiveC)
        return navigateToChat?(for: user) != nil
        #else
        return PNDelegateProbe.invoke { navigateToChat(for: user) }
        #endif
    }

    /// Calls `navigateToChat(for:)` with a group; `false` when not implemented.
    func pnNavigateToChat(_ group: PNGroup) -> Bool {
        #if canImport(ObjectiveC)
        return navigateToChat?(for: group) != nil
        #else
        return PNDelegateProbe.invoke { navigateToChat(for: group) }
        #endif
    }

    /// Calls `didFailToSendReply(_:to:error:)`; `false` when not implemented.
    @discardableResult
    func pnDidFailToSendReply(_ text: String, _ info: CometChatNotificationInfo, _ error: PNError) -> Bool {
        #if canImport(ObjectiveC)
        return didFailToSendReply?(text, to: info, error: error) != nil
        #else
        return PNDelegateProbe.invoke { didFailToSendReply(text, to: info, error: error) }
        #endif
    }
}
