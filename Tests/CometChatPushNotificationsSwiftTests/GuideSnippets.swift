import Foundation
import Testing
import CometChatPushNotificationsSwift

// The reference guide's Swift snippets for sections 3, 4 and 6 and "Ring readiness and
// diagnostics", as written (UIKit types left out: this compiles on Linux). If a public name
// changes, this file stops compiling.

/// Guide §5: the delegate (Core methods).
final class GuidePushDelegate: NSObject, CometChatPushNotificationsDelegate {
    func navigateToNotificationsFeed() { /* open your notifications screen */  }
    func didTapNotification(_ info: CometChatNotificationInfo) { /* info.rawPayload has everything */  }
    func navigateToDefaultScreen() {}
    func onPushTokenRegistered(platform: CometChatPushTokenPlatform) {}
    func onPushTokenRegistrationFailed(platform: CometChatPushTokenPlatform, error: PNError) {
        print("Push token \(platform.rawName) not registered: \(error.code.name) \(error.message)")
    }
}

/// The guide's AppDelegate, minus UIKit.
@MainActor
final class GuideAppDelegate {
    // The SDK holds its delegate weakly: the app keeps it alive.
    let pushDelegate = GuidePushDelegate()

    /// §3: in `application(_:didFinishLaunchingWithOptions:)`.
    func section3DidFinishLaunching() -> Bool {
        CometChatPushNotifications.shared.delegate = pushDelegate
        CometChatPushNotifications.shared.initialize(
            config: PNConfiguration(
                appId: "APP_ID",
                region: "REGION",
                providerId: "PROVIDER_ID",
                extensionGroupID: "group.com.yourcompany.yourapp"  // only with the service extension
            ))
        return true
    }

    /// §3: the builder, as the Objective-C snippet chains it.
    nonisolated static func section3Builder() -> PNConfiguration {
        PNConfiguration.builder(appId: "APP_ID", region: "REGION")
            .providerId("PROVIDER_ID")
            .extensionGroupID("group.com.yourcompany.yourapp")
            .build()
    }

    /// §4: the AppDelegate's token callbacks and silent pushes.
    func section4(deviceToken: Data, error: Error, userInfo: [AnyHashable: Any]) {
        CometChatPushNotifications.shared.registerDeviceToken(deviceToken)
        CometChatPushNotifications.shared.handleRegistrationFailure(error)
        CometChatPushNotifications.shared.handleBackgroundNotification(userInfo: userInfo)
    }

    /// §5: suppress notifications for the open chat.
    func section5(userUID: String?) {
        CometChatPushNotifications.shared.setActiveConversation(userId: userUID ?? "")
        CometChatPushNotifications.shared.clearActiveConversation()
    }

    /// §8: clear the badge.
    func section8() {
        CometChatPushNotifications.shared.clearBadgeCount()
    }

    /// §9: read a raw payload.
    func section9(userInfo: [AnyHashable: Any]) -> Bool {
        _ = CometChatPushNotifications.parseNotificationInfo(from: userInfo)
        return CometChatPushNotifications.isCampaignNotification(userInfo: userInfo)
    }

    /// §6: logout.
    func section6Logout() {
        CometChatPushNotifications.shared.unregisterTokens(completion: { _ in
            // CometChat.logout(onSuccess: { _ in }, onError: { _ in })
        })
    }

    /// Ring readiness and diagnostics.
    func ringReadiness() {
        CometChatPushNotifications.shared.ensureRingReady { result in
            guard case .success(let readiness) = result, readiness != .ready else { return }
            print("Push not ready: \(readiness.name)")
        }
        _ = CometChatPushNotifications.shared.getDiagnostics()
    }

    /// FCM instead of APNs.
    func fcm(fcmToken: String?) {
        if let token = fcmToken {
            CometChatPushNotifications.shared.registerFCMToken(token)
        }
    }
}

@Suite("Guide snippets")
struct GuideSnippetTests {
    @Test("The builder snippet builds the same configuration as the initializer snippet")
    func builderMatchesInitializer() {
        let built = GuideAppDelegate.section3Builder()
        // The initializer with section 3's arguments: every option the builder leaves alone
        // must keep the initializer's default.
        let initialized = PNConfiguration(
            appId: "APP_ID", region: "REGION", providerId: "PROVIDER_ID", extensionGroupID: "group.com.yourcompany.yourapp")
        #expect(built.appId == initialized.appId && built.region == initialized.region)
        #expect(built.providerId == initialized.providerId && built.extensionGroupID == initialized.extensionGroupID)
        #expect(built.enableBadgeCount == initialized.enableBadgeCount)
        #expect(built.showInAppNotifications == initialized.showInAppNotifications)
        #expect(built.requestNotificationPermission == initialized.requestNotificationPermission)
        #expect(built.autoRegisterTokens == initialized.autoRegisterTokens)
        #expect(built.tokenRegistrar == initialized.tokenRegistrar)
        #expect(built.authToken == initialized.authToken && built.clientHost == initialized.clientHost)
        #expect(built.callKit == initialized.callKit)
        #expect(built.requestCallPermissions == initialized.requestCallPermissions)
        #expect(built.pushKitOwnership == initialized.pushKitOwnership)
        #expect(built.missedCallNotifications == initialized.missedCallNotifications)
    }
}

/// "Preferences, read state and push traces" (ReadStateAndPreferences.md), as written.
@MainActor
func guidePreferencesAndReadState() {
    let sdk = CometChatPushNotifications.shared
    // Mute Bob until tomorrow, the hikers group forever.
    sdk.setConversationMuted(userId: "bob", until: Date().addingTimeInterval(86_400))
    sdk.setConversationMuted(groupId: "hikers", until: nil)
    // Only messages that mention the user, from the climbers group.
    sdk.setGroupNotificationLevel(.mentionsOnly, groupId: "climbers")
    // Nothing loud from 22:00 to 07:00; calls still ring.
    sdk.setQuietHours(start: DateComponents(hour: 22), end: DateComponents(hour: 7), includeCalls: false)
    sdk.getPreferences { result in
        if case .success(let preferences) = result { print(preferences.mutes.count) }
    }
    CometChatPushNotifications.shared.markConversationRead(userId: "bob", unreadCount: 3)
    CometChatPushNotifications.shared.markConversationRead(groupId: "hikers", unreadCount: 0)
}
