#if canImport(UIKit) && canImport(UserNotifications) && canImport(Security) && canImport(os)
import Foundation

extension PNPlatform {
    /// The live platform of the app: UIKit, UserNotifications, the keychain, `os.Logger`,
    /// `URLSession`, and the bridge to CometChat's Chat and Calls SDKs. App extensions use
    /// ``appExtension``: `UIApplication` does not exist there.
    @available(iOSApplicationExtension, unavailable)
    public static var live: PNPlatform {
        apple(application: UIApplicationAdapter(), sessionBridge: liveSessionBridge)
    }

    /// The live platform of an app extension (the Notification Service Extension): the same
    /// storage, keychain, network and notification center as the app, without `UIApplication`
    /// or the CometChat SDK bridge.
    public static var appExtension: PNPlatform {
        apple(application: AppExtensionApplication(), sessionBridge: PNNoSessionBridge())
    }

    private static func apple(application: PNApplication, sessionBridge: PNSessionBridge) -> PNPlatform {
        PNPlatform(
            store: UserDefaultsStore(),
            sharedStore: { UserDefaultsStore(suiteName: $0) },
            secureStore: { KeychainStore(accessGroup: $0) },
            transport: URLSessionTransport(),
            clock: PNSystemClock(),
            application: application,
            permissions: NotificationPermissionsAdapter(),
            sessionBridge: sessionBridge,
            logger: OSLogLogger(),
            notificationCenter: UserNotificationCenterAdapter(),
            apnsEnvironment: { ProvisioningProfile.apnsEnvironment })
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
