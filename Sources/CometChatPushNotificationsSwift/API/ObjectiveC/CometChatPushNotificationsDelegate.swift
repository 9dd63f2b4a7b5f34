#if canImport(ObjectiveC)
import Foundation

// The delegate protocol, declared twice because Swift requires it: with Objective-C `optional`
// requirements where there is Objective-C, and with default implementations elsewhere
// (`#if` cannot wrap `@objc optional`). Both declare the same requirements, in the same
// order, and the same `pn…` calls; `ObjectiveCSurfaceTests` fails when they differ.

/// Receives taps, token outcomes and message edits and deletions. One object serves every product: adopt
/// `CometChatPushNotificationsChatDelegate` or `CometChatPushNotificationsCallsDelegate`
/// too when you link those products. Every method is optional and called on the main queue.
///
/// The SDK holds its delegate weakly: keep a strong reference to it.
@objc(CometChatPushNotificationsDelegate)
public protocol CometChatPushNotificationsDelegate: NSObjectProtocol {
    /// A tapped notification that no product handled, or any tap in an app without the Chat product.
    @objc(didTapNotification:) optional func didTapNotification(_ info: CometChatNotificationInfo)
    /// A tapped campaign notification (already marked clicked when the Chat product is linked).
    @objc optional func navigateToNotificationsFeed()
    /// The fallback when the method matching a tap is not implemented.
    @objc optional func navigateToDefaultScreen()
    /// A token of `platform` was registered with the service.
    @objc(onPushTokenRegisteredWithPlatform:) optional func onPushTokenRegistered(platform: CometChatPushTokenPlatform)
    /// A token of `platform` could not be registered; `error` says why.
    @objc(onPushTokenRegistrationFailedWithPlatform:error:)
    optional func onPushTokenRegistrationFailed(platform: CometChatPushTokenPlatform, error: PNError)
    /// A message of the user's conversations was edited; its notification, if still shown, now
    /// shows the new text. Refresh a chat list here. Once per edit, from its push or the catch-up.
    @objc(didEditMessage:) optional func didEditMessage(_ change: PNMessageChange)
    /// A message of the user's conversations was deleted; its notification is gone. Refresh a
    /// chat list here. Once per deletion, from its push or the catch-up.
    @objc(didDeleteMessage:) optional func didDeleteMessage(_ change: PNMessageChange)
}

/// Calls to the delegate's optional methods that answer whether the app implemented them.
@_spi(PNProducts)
extension CometChatPushNotificationsDelegate {
    /// Calls `didTapNotification(_:)`; `false` when not implemented.
    @discardableResult
    public func pnDidTapNotification(_ info: CometChatNotificationInfo) -> Bool {
        guard let method = didTapNotification else { return false }
        method(info)
        return true
    }

    /// Calls `navigateToNotificationsFeed()`; `false` when not implemented.
    @discardableResult
    public func pnNavigateToNotificationsFeed() -> Bool {
        guard let method = navigateToNotificationsFeed else { return false }
        method()
        return true
    }

    /// Calls `navigateToDefaultScreen()`; `false` when not implemented.
    @discardableResult
    public func pnNavigateToDefaultScreen() -> Bool {
        guard let method = navigateToDefaultScreen else { return false }
        method()
        return true
    }

    /// Calls `onPushTokenRegistered(platform:)`; `false` when not implemented.
    @discardableResult
    public func pnOnPushTokenRegistered(_ platform: CometChatPushTokenPlatform) -> Bool {
        guard let method = onPushTokenRegistered else { return false }
        method(platform)
        return true
    }

    /// Calls `onPushTokenRegistrationFailed(platform:error:)`; `false` when not implemented.
    @discardableResult
    public func pnOnPushTokenRegistrationFailed(_ platform: CometChatPushTokenPlatform, _ error: PNError) -> Bool {
        guard let method = onPushTokenRegistrationFailed else { return false }
        method(platform, error)
        return true
    }

    /// Calls `didEditMessage(_:)`; `false` when not implemented.
    @discardableResult
    public func pnDidEditMessage(_ change: PNMessageChange) -> Bool {
        guard let method = didEditMessage else { return false }
        method(change)
        return true
    }

    /// Calls `didDeleteMessage(_:)`; `false` when not implemented.
    @discardableResult
    public func pnDidDeleteMessage(_ change: PNMessageChange) -> Bool {
        guard let method = didDeleteMessage else { return false }
        method(change)
        return true
    }
}
#else
import Foundation

/// Receives taps, token outcomes and message edits and deletions. One object serves every product: adopt
/// `CometChatPushNotificationsChatDelegate` or `CometChatPushNotificationsCallsDelegate`
/// too when you link those products. Every method is optional (it has a default) and is called
/// on the main queue.
///
/// The SDK holds its delegate weakly: keep a strong reference to it.
public protocol CometChatPushNotificationsDelegate: AnyObject {
    /// A tapped notification that no product handled, or any tap in an app without the Chat product.
    func didTapNotification(_ info: CometChatNotificationInfo)
    /// A tapped campaign notification (already marked clicked when the Chat product is linked).
    func navigateToNotificationsFeed()
    /// The fallback when the method matching a tap is not implemented.
    func navigateToDefaultScreen()
    /// A token of `platform` was registered with the service.
    func onPushTokenRegistered(platform: CometChatPushTokenPlatform)
    /// A token of `platform` could not be registered; `error` says why.
    func onPushTokenRegistrationFailed(platform: CometChatPushTokenPlatform, error: PNError)
    /// A message of the user's conversations was edited; its notification, if still shown, now
    /// shows the new text. Refresh a chat list here. Once per edit, from its push or the catch-up.
    func didEditMessage(_ change: PNMessageChange)
    /// A message of the user's conversations was deleted; its notification is gone. Refresh a
    /// chat list here. Once per deletion, from its push or the catch-up.
    func didDeleteMessage(_ change: PNMessageChange)
}

extension CometChatPushNotificationsDelegate {
    /// Not implemented: the SDK falls back to ``navigateToDefaultScreen()``.
    public func didTapNotification(_ info: CometChatNotificationInfo) { PNDelegateProbe.markUnimplemented() }
    /// Not implemented: the SDK falls back to ``navigateToDefaultScreen()``.
    public func navigateToNotificationsFeed() { PNDelegateProbe.markUnimplemented() }
    /// Not implemented.
    public func navigateToDefaultScreen() { PNDelegateProbe.markUnimplemented() }
    /// Not implemented.
    public func onPushTokenRegistered(platform: CometChatPushTokenPlatform) { PNDelegateProbe.markUnimplemented() }
    /// Not implemented.
    public func onPushTokenRegistrationFailed(platform: CometChatPushTokenPlatform, error: PNError) {
        PNDelegateProbe.markUnimplemented()
    }
    /// Not implemented.
    public func didEditMessage(_ change: PNMessageChange) { PNDelegateProbe.markUnimplemented() }
    /// Not implemented.
    public func didDeleteMessage(_ change: PNMessageChange) { PNDelegateProbe.markUnimplemented() }
}

/// Calls to the delegate's optional methods that answer whether the app implemented them.
@_spi(PNProducts)
extension CometChatPushNotificationsDelegate {
    /// Calls `didTapNotification(_:)`; `false` when not implemented.
    @discardableResult
    public func pnDidTapNotification(_ info: CometChatNotificationInfo) -> Bool {
        PNDelegateProbe.invoke { didTapNotification(info) }
    }

    /// Calls `navigateToNotificationsFeed()`; `false` when not implemented.
    @discardableResult
    public func pnNavigateToNotificationsFeed() -> Bool {
        PNDelegateProbe.invoke { navigateToNotificationsFeed() }
    }

    /// Calls `navigateToDefaultScreen()`; `false` when not implemented.
    @discardableResult
    public func pnNavigateToDefaultScreen() -> Bool {
        PNDelegateProbe.invoke { navigateToDefaultScreen() }
    }

    /// Calls `onPushTokenRegistered(platform:)`; `false` when not implemented.
    @discardableResult
    public func pnOnPushTokenRegistered(_ platform: CometChatPushTokenPlatform) -> Bool {
        PNDelegateProbe.invoke { onPushTokenRegistered(platform: platform) }
    }

    /// Calls `onPushTokenRegistrationFailed(platform:error:)`; `false` when not implemented.
    @discardableResult
    public func pnOnPushTokenRegistrationFailed(_ platform: CometChatPushTokenPlatform, _ error: PNError) -> Bool {
        PNDelegateProbe.invoke { onPushTokenRegistrationFailed(platform: platform, error: error) }
    }

    /// Calls `didEditMessage(_:)`; `false` when not implemented.
    @discardableResult
    public func pnDidEditMessage(_ change: PNMessageChange) -> Bool {
        PNDelegateProbe.invoke { didEditMessage(change) }
    }

    /// Calls `didDeleteMessage(_:)`; `false` when not implemented.
    @discardableResult
    public func pnDidDeleteMessage(_ change: PNMessageChange) -> Bool {
        PNDelegateProbe.invoke { didDeleteMessage(change) }
    }
}
#endif
