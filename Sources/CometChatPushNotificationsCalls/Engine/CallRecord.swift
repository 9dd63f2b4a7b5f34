import Foundation
import CometChatPushNotificationsSwift

/// A call the engine rings or holds: the current call, or a second one that waits while the
/// current call is in progress (call waiting). A third call is turned away busy.
struct CallRecord: Sendable {
    enum Phase: String, Sendable {
        /// Reported to CallKit; the report's completion has not come back.
        case reporting
        /// CallKit accepted the report: the device rings.
        case ringing
        /// The user answered; `presentCall(_:)` is running.
        case answering
        /// The app presented the call.
        case active
    }

    let call: IncomingCall
    var phase: Phase
    let since: Date
    var muted = false
    /// Put on hold through CallKit (the user's Hold, or Hold & Accept of a waiting call).
    var onHold = false

    var uuid: UUID { call.callUUID }
    var isRinging: Bool { phase != .active }
}

/// Something the engine does after a transition, outside its lock, in order.
enum CallEffect: Sendable {
    case reportEnded(UUID, PNCallKitEndedReason)
    case startRingTimer(UUID)
    case cancelRingTimer(Task<Void, Never>)
    case sendStatus(sessionId: String, status: String, completion: (@Sendable (PNResult<Void>) -> Void)?)
    case callDidEnd(IncomingCall, CallEndReason)
    /// The call went on hold or came off it: tell the delegate.
    case holdChanged(IncomingCall, Bool)
    /// A call was answered while CallKit's audio session was already active (another call
    /// holds it): CallKit does not activate it again, so the media hears it now.
    case audioLive(IncomingCall)
    case prepareMedia(IncomingCall)
    case cancelMedia(IncomingCall)
}

/// What to do with one VoIP push: the report to make inside the PushKit callback, and what
/// follows once CallKit answers it.
struct PushPlan: Sendable {
    var report: PNIncomingCallReport
    /// The call this report starts ringing, if it does.
    var ringing: IncomingCall?
    /// End the reported call as soon as CallKit accepted it.
    var endAtOnce: PNCallKitEndedReason?
    var effects: [CallEffect] = []
    /// Why, for the log.
    var note: String
}
