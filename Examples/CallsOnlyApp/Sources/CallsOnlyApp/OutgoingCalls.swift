import Foundation
import Intents
import CometChatPushNotificationsCalls

/// A call this app placed: from its own UI, or from the Phone app's Recents.
struct OutgoingCall: Equatable {
    /// Who is called: a user's uid, or a group's guid.
    let handle: String
    let isVideo: Bool
    /// The session id the calls SDK gave the call.
    let sessionId: String
}

/// The app's call-placing code. Tapping one of this app's calls in the Phone app's Recents opens
/// the app with an `INStartCallIntent` (its user activity type is `"INStartCallIntent"`, declared
/// in Info.plist's `NSUserActivityTypes`); ``callBack(from:)`` reads whom to call from it.
@MainActor
final class OutgoingCalls: ObservableObject {
    static let shared = OutgoingCalls()

    /// The user activity type a tap in Recents opens the app with.
    static let recentsActivityType = "INStartCallIntent"

    /// The call in progress, if any.
    @Published private(set) var current: OutgoingCall?

    /// Calls back the person or group of a call tapped in Recents. The contact's handle is what
    /// the SDK gave CallKit for the incoming call: the caller's uid, or the group's guid for a
    /// group call (your app's own data tells which). Returns whether the activity was a call.
    func callBack(from activity: NSUserActivity) -> Bool {
        guard let intent = activity.interaction?.intent as? INStartCallIntent,
            let handle = intent.contacts?.first?.personHandle?.value, !handle.isEmpty
        else { return false }
        guard SignedInUser.uid != nil else {
            print("Call back \(handle) from Recents: sign in first")
            return false
        }
        place(to: handle, video: intent.callCapability == .videoCall)
        return true
    }

    /// Places a call with the calls SDK, then tells this SDK about it.
    func place(to handle: String, video: Bool) {
        guard current == nil else { return }
        // Your calls SDK, or your backend, places the call here and gives you its session id
        // (with CometChat's Chat SDK: CometChat.initiateCall, whose call has the sessionID), then
        // you join that session with the calls SDK and report it as below. This example links
        // no calls SDK, so a made-up session id stands in for that one.
        let sessionId = "example-\(UUID().uuidString)"
        // While this call lasts, incoming calls are turned away as busy.
        CometChatPushNotificationsCalls.shared.reportOutgoingCallStarted(sessionId: sessionId)
        current = OutgoingCall(handle: handle, isVideo: video, sessionId: sessionId)
    }

    /// Ends the call in progress (after your calls SDK left it).
    func hangUp() {
        guard let call = current else { return }
        CometChatPushNotificationsCalls.shared.reportCallEnded(sessionId: call.sessionId, reason: .localEnded)
        current = nil
    }
}
