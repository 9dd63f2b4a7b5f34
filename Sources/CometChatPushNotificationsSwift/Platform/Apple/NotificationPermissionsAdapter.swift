#if canImport(UserNotifications)
import Foundation
@preconcurrency import UserNotifications

/// ``PNNotificationPermissions`` on `UNUserNotificationCenter`.
struct NotificationPermissionsAdapter: PNNotificationPermissions {
    func currentPermission() async -> PNNotificationPermission {
        let settings = await UNUserNotificationCenter.current().notificationSettings()
        return Self.convert(settings.authorizationStatus)
    }

    func requestPermission() async -> PNNotificationPermission {
        _ = try? await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .badge, .sound])
        return await currentPermission()
    }

    static func convert(_ status: UNAuthorizationStatus) -> PNNotificationPermission {
        switch status {
        case .notDetermined: return .notDetermined
        case .denied: return .denied
        case .authorized: return .authorized
        case .provisional: return .provisional
        #if os(iOS)
        case .ephemeral: return .ephemeral
        #endif
        @unknown default: return .denied
        }
    }
}
#endif
