import Foundation
import UIKit
import CometChatPushNotificationsSwift

/// Initialises the SDK on every launch and forwards what only the app delegate receives: the
/// APNs device token, its failure, and silent pushes.
final class AppDelegate: NSObject, UIApplicationDelegate {
    /// The SDK holds its delegate weakly: the app delegate keeps it alive.
    let pushDelegate = PushDelegate()

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        // The delegate first: the tap that launched the app is delivered during initialize.
        CometChatPushNotifications.shared.delegate = pushDelegate
        CometChatPushNotifications.shared.initialize(
            config: PNConfiguration(
                appId: Config.appId,
                region: Config.region,
                providerId: Config.providerId,
                // The extension and the app send each delivered receipt once between them.
                extensionGroupID: Config.extensionGroupID
            ))
        return true
    }

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        CometChatPushNotifications.shared.registerDeviceToken(deviceToken)
    }

    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {
        // Surfaces entitlement and provisioning problems in getDiagnostics() and the log.
        CometChatPushNotifications.shared.handleRegistrationFailure(error)
    }

    func application(
        _ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        // Silent pushes: campaign receipts and badge updates. Complete only when the SDK is done:
        // iOS may suspend the app as soon as the completion handler runs.
        CometChatPushNotifications.shared.handleBackgroundNotification(userInfo: userInfo) { result in
            completionHandler(UIBackgroundFetchResult(rawValue: UInt(result.rawValue)) ?? .newData)
        }
    }
}
