import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

// The reference guide's call snippets and the 2.0 names of its upgrade table, as an app writes
// them. This file compiling is most of the test.

/// One delegate object serves every product (guide §5), adopting the Calls delegate.
final class GuidePushDelegate: NSObject, CometChatPushNotificationsCallsDelegate {
    // presentCallScreen(for:sessionId:) → presentCall(_ call: IncomingCall) -> Bool
    func presentCall(_ call: IncomingCall) -> Bool {
        // join with the calls SDK using call.sessionId
        return !call.sessionId.isEmpty
    }

    // onCallCleanupComplete, onCallMissed → callDidEnd(_:reason:)
    func callDidEnd(_ call: IncomingCall, reason: CallEndReason) {
        if reason == .timedOut { /* missed */  }
    }

    func onPushTokenRegistrationFailed(platform: CometChatPushTokenPlatform, error: PNError) {
        print("Push token \(platform.rawName) not registered: \(error.code.name) \(error.message)")
    }
}

/// Guide "Ring readiness and diagnostics", verbatim.
func guideRingReadiness() {
    CometChatPushNotifications.shared.ensureRingReady { result in
        guard case .success(let readiness) = result, readiness != .ready else { return }
        // .notificationsOff, .providerMissing, and with the Calls product
        // .backgroundModeMissing, .voipEntitlementMissing, .microphoneDenied
        print("Push not ready: \(readiness.name)")
    }
}

/// Guide §3 option table: callKit, requestCallPermissions, pushKitOwnership; upgrade table:
/// callkitIconName, callkitRingtoneName → CallKitBranding in callKit.
func guideConfiguration() -> PNConfiguration {
    PNConfiguration(
        appId: "APP_ID",
        region: "REGION",
        providerId: "PROVIDER_ID",
        callKit: CallKitBranding(iconTemplateImageName: "CallIcon", ringtone: "ringtone.caf"),
        requestCallPermissions: true,
        pushKitOwnership: .sdk
    )
}

/// An app that owns PushKit forwards to the Calls product.
func guideAppOwnedPushKit(token: Data, payload: [AnyHashable: Any], completion: @escaping () -> Void) {
    CometChatPushNotificationsCalls.handleVoIPToken(token)
    CometChatPushNotificationsCalls.handleIncomingVoIPPush(payload, completion: completion)
    CometChatPushNotificationsCalls.decline(sessionId: "session")
    CometChatPushNotificationsCalls.shared.reportCallEnded(sessionId: "session", reason: .localEnded)
}

@Suite("Guide snippets")
struct GuideSnippetTests {
    @Test("The guide's call names exist with the documented shapes")
    func names() {
        #expect(CallEndReason.allCases.map(\.name).contains("answeredElsewhere"))
        #expect(
            [PNRingReadiness.backgroundModeMissing, .voipEntitlementMissing, .microphoneDenied].map(\.name)
                == ["backgroundModeMissing", "voipEntitlementMissing", "microphoneDenied"])
    }
}
