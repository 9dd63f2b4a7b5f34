import Foundation

/// The user's notification permission, as `UNAuthorizationStatus` reports it.
public enum PNNotificationPermission: String, Sendable {
    /// The prompt has not been shown.
    case notDetermined
    /// The user said no.
    case denied
    /// The user said yes.
    case authorized
    /// Delivered quietly until the user decides.
    case provisional
    /// App Clips: for a limited time.
    case ephemeral

    /// Whether notifications can be shown.
    public var allowsNotifications: Bool {
        switch self {
        case .authorized, .provisional, .ephemeral: return true
        case .notDetermined, .denied: return false
        }
    }
}

/// Notification permission (`UNUserNotificationCenter` authorization on iOS).
public protocol PNNotificationPermissions: Sendable {
    /// The current permission.
    func currentPermission() async -> PNNotificationPermission
    /// Shows the prompt if it has not been shown (iOS shows it once) and returns the outcome.
    func requestPermission() async -> PNNotificationPermission
}
