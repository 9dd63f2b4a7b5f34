import Foundation

/// A call that rang on this device and ended unanswered (the caller hung up, or nobody answered
/// before the ring timeout), as its "Missed call" notification describes it. Passed to
/// `callBack(_:)` when the user taps the notification or its Call back action.
#if canImport(ObjectiveC)
@objc(PNMissedCall) @objcMembers
#endif
public final class PNMissedCall: NSObject, Sendable {
    /// The missed call's session id.
    public let sessionId: String
    /// The caller's uid: call this user back (`""` when the push named no caller).
    public let callerUid: String
    /// The caller's name, as the notification shows it.
    public let callerName: String
    /// Who was called: the user's uid, or the group's guid for a group call.
    public let receiver: String
    /// Audio or video.
    public let callType: PNCallType
    /// Whether it was a group call (call the group back: ``receiver``).
    public let isGroup: Bool

    /// Creates a missed call. The SDK builds these from its notifications; tests and previews may
    /// build their own.
    public init(sessionId: String, callerUid: String, callerName: String, receiver: String, callType: PNCallType, isGroup: Bool) {
        self.sessionId = sessionId
        self.callerUid = callerUid
        self.callerName = callerName
        self.receiver = receiver
        self.callType = callType
        self.isGroup = isGroup
    }

    /// Whether the call had video.
    public var isVideo: Bool { callType == .video }

    /// The session id, type and group flag (no names: descriptions end up in logs).
    public override var description: String {
        "PNMissedCall(\(sessionId), \(callType.name)\(isGroup ? ", group" : ""))"
    }
}
