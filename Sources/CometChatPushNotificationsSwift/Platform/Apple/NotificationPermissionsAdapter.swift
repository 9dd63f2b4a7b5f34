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

    /// Maps the status with comparisons rather than a `switch`, so the `ephemeral` case (iOS only)
    /// needs no platform-specific exhaustiveness.
    static func convert(_ status: UNAuthorizationStatus) -> PNNotificationPermission {
        if status == .notDetermined { return .notDetermined }
        if status == .authorized { return .authorized }
        if status == .provisional { return .provisional }
        #if os(iOS)
        if status == .ephemeral { return .ephemeral }
        #endif
        return .denied
    }
}
#endif
