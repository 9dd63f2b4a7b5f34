import Foundation

/// The first thing found that could silence a notification or a ring, or ``ready``.
#if canImport(ObjectiveC)
@objc(PNRingReadiness)
#endif
public enum PNRingReadiness: Int, Sendable, CaseIterable {
    /// Nothing found.
    case ready = 0
    /// The user has not allowed notifications (denied, or never asked).
    case notificationsOff = 1
    /// `PNConfiguration.providerId` is missing, so no token can be registered.
    case providerMissing = 2
    /// Calls: Info.plist has no `voip` background mode.
    case backgroundModeMissing = 3
    /// Calls: no VoIP token arrived, so PushKit is not entitled or not set up.
    case voipEntitlementMissing = 4
    /// Calls: the user denied the microphone, so an answered call has no audio.
    case microphoneDenied = 5
    /// Private push: pushes arrive encrypted, but no Notification Service Extension opens them,
    /// so users see placeholders ("New message") only. Add a `CometChatNotificationServiceExtension`
    /// with the App Group of `extensionGroupID`.
    case privatePushWithoutExtension = 6

    /// The case's name, for logs: `"notificationsOff"`.
    public var name: String {
        switch self {
        case .ready: return "ready"
        case .notificationsOff: return "notificationsOff"
        case .providerMissing: return "providerMissing"
        case .backgroundModeMissing: return "backgroundModeMissing"
        case .voipEntitlementMissing: return "voipEntitlementMissing"
        case .microphoneDenied: return "microphoneDenied"
        case .privatePushWithoutExtension: return "privatePushWithoutExtension"
        }
    }
}
