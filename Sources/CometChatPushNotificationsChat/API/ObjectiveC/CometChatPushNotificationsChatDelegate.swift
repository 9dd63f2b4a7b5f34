#if canImport(ObjectiveC)
import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

// The Chat delegate protocol, declared twice because Swift requires it: with Objective-C
// `optional` requirements where there is Objective-C, and with default implementations
// elsewhere (`#if` cannot wrap `@objc optional`). Both declare the same requirements, in the
// same order, and the same `pn…` calls; `ObjectiveCSurfaceTests` fails when they differ.

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

/// Calls to the optional methods that answer whether the app implemented them.
extension CometChatPushNotificationsChatDelegate {
    /// Calls `navigateToChat(for:)` with a user; `false` when not implemented.
    func pnNavigateToChat(_ user: PNUser) -> Bool {
        navigateToChat?(for: user) != nil
    }

    /// Calls `navigateToChat(for:)` with a group; `false` when not implemented.
    func pnNavigateToChat(_ group: PNGroup) -> Bool {
        navigateToChat?(for: group) != nil
    }

    /// Calls `didFailToSendReply(_:to:error:)`; `false` when not implemented.
    @discardableResult
    func pnDidFailToSendReply(_ text: String, _ info: CometChatNotificationInfo, _ error: PNError) -> Bool {
        didFailToSendReply?(text, to: info, error: error) != nil
    }
}
#else
import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

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

/// Calls to the optional methods that answer whether the app implemented them.
extension CometChatPushNotificationsChatDelegate {
    /// Calls `navigateToChat(for:)` with a user; `false` when not implemented.
    func pnNavigateToChat(_ user: PNUser) -> Bool {
        PNDelegateProbe.invoke { navigateToChat(for: user) }
    }

    /// Calls `navigateToChat(for:)` with a group; `false` when not implemented.
    func pnNavigateToChat(_ group: PNGroup) -> Bool {
        PNDelegateProbe.invoke { navigateToChat(for: group) }
    }

    /// Calls `didFailToSendReply(_:to:error:)`; `false` when not implemented.
    @discardableResult
    func pnDidFailToSendReply(_ text: String, _ info: CometChatNotificationInfo, _ error: PNError) -> Bool {
        PNDelegateProbe.invoke { didFailToSendReply(text, to: info, error: error) }
    }
}
#endif
