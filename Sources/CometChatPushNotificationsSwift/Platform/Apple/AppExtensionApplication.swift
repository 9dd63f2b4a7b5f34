#if canImport(UserNotifications)
import Foundation
import UserNotifications

/// ``PNApplication`` inside an app extension, where `UIApplication` is unavailable: the process
/// is never "active", cannot register for remote notifications or ask for background time, and
/// sets the badge through the notification center (iOS 16+).
struct AppExtensionApplication: PNApplication {
    func applicationState() -> PNApplicationState { .background }

    func registerForRemoteNotifications() {}

    func setBadgeCount(_ count: Int) {
        if #available(iOS 16.0, macOS 13.0, *) {
            UNUserNotificationCenter.current().setBadgeCount(count, withCompletionHandler: nil)
        }
    }

    func backgroundModes() -> Set<String> {
        Set(Bundle.main.object(forInfoDictionaryKey: "UIBackgroundModes") as? [String] ?? [])
    }

    func beginBackgroundTask(name: String, expiration: @escaping @Sendable () -> Void) async -> Int { 0 }

    func endBackgroundTask(_ identifier: Int) {}
}
#endif
