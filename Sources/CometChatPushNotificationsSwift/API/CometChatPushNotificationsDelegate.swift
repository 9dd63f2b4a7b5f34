import Foundation

#if canImport(ObjectiveC)
/// Receives taps and token outcomes. One object serves every product: adopt
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
}
#else
/// Receives taps and token outcomes. One object serves every product: adopt
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
}
#endif

/// Tells whether an optional delegate method was implemented, on platforms without
/// Objective-C `optional` requirements: the default implementations mark the call.
@_spi(PNProducts)
public enum PNDelegateProbe {
    private static let unimplemented = PNLocked<[ObjectIdentifier: Bool]>([:])

    private static var threadKey: ObjectIdentifier { ObjectIdentifier(Thread.current) }

    /// Called by a protocol extension's default implementation.
    public static func markUnimplemented() {
        let key = threadKey
        unimplemented.withLock { $0[key] = true }
    }

    /// Runs `call` and answers whether it reached an implementation of the app's.
    public static func invoke(_ call: () -> Void) -> Bool {
        let key = threadKey
        unimplemented.withLock { $0[key] = false }
        call()
        return unimplemented.withLock { $0.removeValue(forKey: key) } != true
    }
}
