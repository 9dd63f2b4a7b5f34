#if canImport(UIKit) && canImport(UserNotifications) && canImport(Security) && canImport(os)
import Foundation

extension PNPlatform {
    /// The live platform: UIKit, UserNotifications, the keychain, `os.Logger`, `URLSession`,
    /// and the bridge to CometChat's Chat and Calls SDKs.
    public static var live: PNPlatform {
        PNPlatform(
            store: UserDefaultsStore(),
            sharedStore: { UserDefaultsStore(suiteName: $0) },
            secureStore: { KeychainStore(accessGroup: $0) },
            transport: URLSessionTransport(),
            clock: PNSystemClock(),
            application: UIApplicationAdapter(),
            permissions: NotificationPermissionsAdapter(),
            sessionBridge: liveSessionBridge,
            logger: OSLogLogger(),
            notificationCenter: UserNotificationCenterAdapter())
    }

    private static var liveSessionBridge: PNSessionBridge {
        #if canImport(ObjectiveC)
        return CometChatSDKSessionBridge()
        #else
        return PNNoSessionBridge()
        #endif
    }
}
#endif
