import Foundation

/// Why a call ended, in `callDidEnd(_:reason:)`.
#if canImport(ObjectiveC)
@objc(PNCallEndReason)
#endif
public enum CallEndReason: Int, Sendable, CaseIterable {
    /// The user declined on this device (CallKit, or `decline(sessionId:)` from the app's UI).
    case declined = 0
    /// The caller hung up before anyone answered.
    case cancelled = 1
    /// Nobody answered before the ring timeout; the call shows as missed in Recents.
    case timedOut = 2
    /// The user answered on another device.
    case answeredElsewhere = 3
    /// The user declined on another device.
    case declinedElsewhere = 4
    /// The other side ended an answered call.
    case remoteEnded = 5
    /// The user hung up on this device.
    case localEnded = 6
    /// The call could not continue: CallKit refused it (Do Not Disturb, blocked caller), the app
    /// did not present it, or the user logged out.
    case failed = 7
    /// Another call was in progress, so this one was turned away and the caller told `busy`.
    case busy = 8

    /// The case's name, for logs: `"timedOut"`.
    public var name: String {
        switch self {
        case .declined: return "declined"
        case .cancelled: return "cancelled"
        case .timedOut: return "timedOut"
        case .answeredElsewhere: return "answeredElsewhere"
        case .declinedElsewhere: return "declinedElsewhere"
        case .remoteEnded: return "remoteEnded"
        case .localEnded: return "localEnded"
        case .failed: return "failed"
        case .busy: return "busy"
        }
    }

    /// How CallKit shows this ending, for endings CallKit did not see itself.
    var callKitReason: PNCallKitEndedReason {
        switch self {
        case .declined, .localEnded, .remoteEnded, .cancelled: return .remoteEnded
        case .timedOut, .busy: return .unanswered
        case .answeredElsewhere: return .answeredElsewhere
        case .declinedElsewhere: return .declinedElsewhere
        case .failed: return .failed
        }
    }
}
