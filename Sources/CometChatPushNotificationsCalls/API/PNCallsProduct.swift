import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The Calls product as Core sees it: Core finds this class by name at `initialize(config:)`
/// and installs it, so linking the product is all an app does. Not for apps to use.
///
/// No `@objc` name: Core looks it up by its module-qualified Swift name.
@_spi(PNProducts)
public final class PNCallsProduct: NSObject, PNProductModule {
    private let engine = PNLocked<CallEngine?>(nil)

    /// `"CometChatPushNotificationsCalls"`.
    public static let moduleName = "CometChatPushNotificationsCalls"

    /// Creates the product; Core calls this once per SDK instance.
    public required override init() { super.init() }

    /// Sets up CallKit, creates the PushKit registry (with `pushKitOwnership: .sdk`), asks for
    /// the microphone (with `requestCallPermissions`) and turns missed-call notifications on or
    /// off (`missedCallNotifications`).
    public func install(into sdk: CometChatPushNotifications, config: PNConfiguration) {
        let engine = CallsRegistry.engine(for: sdk)
        self.engine.withLock { $0 = engine }
        engine.missedCalls.enabled = config.missedCallNotifications
        engine.install(config)
    }

    /// `MissedCallCategory`, with its Call back action in the device's language, where calls
    /// ring and `missedCallNotifications` is on.
    public var notificationCategories: [PNNotificationCategory] {
        guard let engine = engine.current, engine.ports.ringsCalls, engine.missedCalls.enabled else { return [] }
        let languages = engine.sdk?.runtimePlatform.preferredLanguages() ?? []
        return [MissedCallNotification.category(MissedCallTexts.forLanguages(languages))]
    }

    /// Takes the responses to missed-call notifications: a tap or Call back reaches the
    /// delegate's `callBack(_:)`.
    public func handleResponse(
        _ response: PNNotificationResponse, info: CometChatNotificationInfo, completion: @escaping @Sendable () -> Void
    ) -> Bool {
        guard let engine = engine.current else { return false }
        return engine.missedCalls.handleResponse(response, completion: completion)
    }

    /// `activeCall` (the ringing or answered call, without names) and the product's state.
    public func diagnostics() -> [String: Any] { engine.current?.diagnostics() ?? ["activeCall": "none"] }

    /// `.backgroundModeMissing`, `.voipEntitlementMissing`, `.microphoneDenied`, or `.ready`.
    public func ringReadiness() async -> PNRingReadiness { engine.current?.readiness() ?? .ready }

    /// Ends a ringing or answered call as `.failed` and turns away pushes until the next login.
    public func sessionDidEnd() async { engine.current?.sessionDidEnd() }
}
