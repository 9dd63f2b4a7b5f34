import Foundation
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

/// Receives answered and ended calls from the SDK, on the main queue, and keeps the answered
/// call until a screen shows it: a call answered from the lock screen can arrive before the UI.
@MainActor
final class CallsDelegate: NSObject, @preconcurrency CometChatPushNotificationsCallsDelegate {
    /// The answered call in progress, if any.
    private(set) var activeCall: IncomingCall?

    /// Called when ``activeCall`` changes; the root view sets it.
    var onActiveCallChange: ((IncomingCall?) -> Void)?

    func presentCall(_ call: IncomingCall) -> Bool {
        // Join `call.sessionId` with your calls SDK here. Return false if you cannot: the SDK then
        // ends the call as `.failed`.
        activeCall = call
        onActiveCallChange?(call)
        return true
    }

    func callDidEnd(_ call: IncomingCall, reason: CallEndReason) {
        print("Call \(call.sessionId) ended: \(reason.name)")
        guard activeCall?.callUUID == call.callUUID else { return }
        activeCall = nil
        onActiveCallChange?(nil)
    }

    func callDidChangeHold(_ call: IncomingCall, onHold: Bool) {
        // Call waiting's Hold & Accept, or Hold on the CallKit screen: pause or resume this call's
        // media in your calls SDK.
        print("Call \(call.sessionId) \(onHold ? "on hold" : "resumed")")
    }

    func onPushTokenRegistered(platform: CometChatPushTokenPlatform) {
        print("Push token registered: \(platform.rawName)")
    }

    func onPushTokenRegistrationFailed(platform: CometChatPushTokenPlatform, error: PNError) {
        // The fastest way to catch a wrong provider id or a missing capability.
        print("Push token \(platform.rawName) not registered: \(error.code.name) \(error.message)")
    }
}
