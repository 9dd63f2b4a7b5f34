import Foundation

#if !canImport(UIKit)
/// The platform outside iOS (Linux, a command-line tool): no app, no notification center, no
/// keychain. Secrets stay in memory; tests use the simulated platform instead.
extension PNPlatform {
    /// The live platform of this system.
    public static var live: PNPlatform {
        let secrets = MemorySecureStore()
        return PNPlatform(
            store: UserDefaultsStore(),
            sharedStore: { UserDefaultsStore(suiteName: $0) },
            secureStore: { _ in secrets },
            transport: URLSessionTransport(),
            clock: PNSystemClock(),
            application: NoApplication(),
            permissions: NoNotificationPermissions(),
            sessionBridge: PNNoSessionBridge(),
            logger: PNStandardErrorLogger())
    }

    /// The platform of an app extension: the same as ``live`` here.
    public static var appExtension: PNPlatform { live }
}

/// Secrets in memory only.
final class MemorySecureStore: PNSecureStore {
    private let values = PNLocked<[String: String]>([:])
    func secret(forKey key: String) -> String? { values.withLock { $0[key] } }
    func setSecret(_ secret: String?, forKey key: String) throws { values.withLock { $0[key] = secret } }
}

/// No app object: always active, no badge, no remote notifications.
struct NoApplication: PNApplication {
    func applicationState() -> PNApplicationState { .active }
    func registerForRemoteNotifications() {}
    func setBadgeCount(_ count: Int) {}
    func backgroundModes() -> Set<String> { [] }
    func beginBackgroundTask(name: String, expiration: @escaping @Sendable () -> Void) async -> Int { 0 }
    func endBackgroundTask(_ identifier: Int) {}
}

/// No notification center: permission is never granted.
struct NoNotificationPermissions: PNNotificationPermissions {
    func currentPermission() async -> PNNotificationPermission { .notDetermined }
    func requestPermission() async -> PNNotificationPermission { .notDetermined }
}
#endif
