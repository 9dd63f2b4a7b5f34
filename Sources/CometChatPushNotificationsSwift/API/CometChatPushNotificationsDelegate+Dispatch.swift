import Foundation

/// Calls to the delegate's optional methods that answer whether the app implemented them,
/// on every platform (Objective-C `optional` on Apple platforms, default implementations
/// elsewhere).
@_spi(PNProducts)
extension CometChatPushNotificationsDelegate {
    /// Calls `didTapNotification(_:)`; `false` when not implemented.
    @discardableResult
    public func pnDidTapNotification(_ info: CometChatNotificationInfo) -> Bool {
        #if canImport(ObjectiveC)
        guard let method = didTapNotification else { return false }
        method(info)
        return true
        #else
        return PNDelegateProbe.invoke { didTapNotification(info) }
        #endif
    }

    /// Calls `navigateToNotificationsFeed()`; `false` when not implemented.
    @discardableResult
    public func pnNavigateToNotificationsFeed() -> Bool {
        #if canImport(ObjectiveC)
        guard let method = navigateToNotificationsFeed else { return false }
        method()
        return true
        #else
        return PNDelegateProbe.invoke { navigateToNotificationsFeed() }
        #endif
    }

    /// Calls `navigateToDefaultScreen()`; `false` when not implemented.
    @discardableResult
    public func pnNavigateToDefaultScreen() -> Bool {
        #if canImport(ObjectiveC)
        guard let method = navigateToDefaultScreen else { return false }
        method()
        return true
        #else
        return PNDelegateProbe.invoke { navigateToDefaultScreen() }
        #endif
    }

    /// Calls `onPushTokenRegistered(platform:)`; `false` when not implemented.
    @discardableResult
    public func pnOnPushTokenRegistered(_ platform: CometChatPushTokenPlatform) -> Bool {
        #if canImport(ObjectiveC)
        guard let method = onPushTokenRegistered else { return false }
        method(platform)
        return true
        #else
        return PNDelegateProbe.invoke { onPushTokenRegistered(platform: platform) }
        #endif
    }

    /// Calls `onPushTokenRegistrationFailed(platform:error:)`; `false` when not implemented.
    @discardableResult
    public func pnOnPushTokenRegistrationFailed(_ platform: CometChatPushTokenPlatform, _ error: PNError) -> Bool {
        #if canImport(ObjectiveC)
        guard let method = onPushTokenRegistrationFailed else { return false }
        method(platform, error)
        return true
        #else
        return PNDelegateProbe.invoke { onPushTokenRegistrationFailed(platform: platform, error: error) }
        #endif
    }
}
