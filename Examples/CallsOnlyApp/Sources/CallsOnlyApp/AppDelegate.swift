import Foundation
import UIKit
import CometChatPushNotificationsSwift

/// Initialises the SDK on every launch, before launch finishes: the Calls product creates the
/// PushKit registry there, which iOS requires for a launch started by a VoIP push.
final class AppDelegate: NSObject, UIApplicationDelegate {
    /// The SDK holds its delegate weakly: the app delegate keeps it alive.
    let callsDelegate = CallsDelegate()

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        // The delegate first, so a call answered during this launch reaches it.
        CometChatPushNotifications.shared.delegate = callsDelegate
        CometChatPushNotifications.shared.initialize(
            config: PNConfiguration(
                appId: Config.appId,
                region: Config.region,
                providerId: Config.providerId,
                // Calls ring without notification permission; a calls-only app registers only the
                // VoIP token, so it needs no APNs device token either.
                requestNotificationPermission: false,
                // The SDK owns the PushKit registry and reports every VoIP push to CallKit.
                pushKitOwnership: .sdk
            ))
        return true
    }
}
