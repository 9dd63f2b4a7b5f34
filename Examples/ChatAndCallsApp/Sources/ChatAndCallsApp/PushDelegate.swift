import Foundation
import CometChatPushNotificationsSwift
import CometChatPushNotificationsChat
import CometChatPushNotificationsCalls

/// One delegate for every product, called on the main queue. A tap that launches the app can
/// arrive before the UI exists, so the destination and the answered call wait here until the
/// root view takes them.
@MainActor
final class PushDelegate: NSObject, @preconcurrency CometChatPushNotificationsChatDelegate,
    @preconcurrency CometChatPushNotificationsCallsDelegate
{
    private var pendingDestination: Destination?

    /// Shows a destination; the root view sets it. A destination that arrived earlier is shown then.
    var onOpen: ((Destination) -> Void)? {
        didSet {
            guard let onOpen, let pending = pendingDestination else { return }
            pendingDestination = nil
            onOpen(pending)
        }
    }

    /// The answered call in progress, if any.
    private(set) var activeCall: IncomingCall?

    /// Called when ``activeCall`` changes; the root view sets it.
    var onActiveCallChange: ((IncomingCall?) -> Void)?

    private func open(_ destination: Destination) {
        if let onOpen {
            onOpen(destination)
        } else {
            pendingDestination = destination
        }
    }

    // MARK: Chat product: taps

    func navigateToChat(for user: PNUser) { open(.chat(.user(user))) }

    func navigateToChat(for group: PNGroup) { open(.chat(.group(group))) }

    func didFailToSendReply(_ text: String, to info: CometChatNotificationInfo, error: PNError) {
        print("Quick reply not sent: \(error.code.name) \(error.message)")
    }

    // MARK: Core: taps and tokens

    /// A campaign notification from the dashboard (already marked clicked).
    func navigateToNotificationsFeed() { open(.notificationsFeed) }

    /// A tap no product recognised: `info.rawPayload` has the whole payload.
    func didTapNotification(_ info: CometChatNotificationInfo) {
        print("Tapped a notification the SDK did not route: \(info.rawPayload.keys.count) payload keys")
    }

    func onPushTokenRegistered(platform: CometChatPushTokenPlatform) {
        print("Push token registered: \(platform.rawName)")
    }

    func onPushTokenRegistrationFailed(platform: CometChatPushTokenPlatform, error: PNError) {
        // The fastest way to catch a wrong provider id or a missing capability.
        print("Push token \(platform.rawName) not registered: \(error.code.name) \(error.message)")
    }

    // MARK: Calls product

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
}
