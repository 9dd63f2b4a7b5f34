import Foundation

/// Audio or video.
#if canImport(ObjectiveC)
@objc(PNCallType)
#endif
public enum PNCallType: Int, Sendable, CaseIterable {
    /// An audio call.
    case audio = 0
    /// A video call.
    case video = 1

    /// `"audio"` or `"video"`, as in the push payload.
    public var name: String { self == .video ? "video" : "audio" }
}

/// A call that rang on this device, as the VoIP push described it. Passed to
/// `presentCall(_:)`, where the app joins the call with its calls SDK, and to
/// `callDidEnd(_:reason:)`.
#if canImport(ObjectiveC)
@objc(PNIncomingCall) @objcMembers
#endif
public final class IncomingCall: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init; `rawPayload` holds property-list values only.

    /// The call's session id: join the call with it.
    public let sessionId: String
    /// The caller's uid.
    public let callerUid: String
    /// The caller's name, as shown on the call screen.
    public let callerName: String
    /// The caller's avatar, if the push carried a valid URL.
    public let callerAvatar: URL?
    /// Who was called: the user's uid, or the group's guid for a group call.
    public let receiver: String
    /// Audio or video.
    public let callType: PNCallType
    /// Whether this is a group call.
    public let isGroup: Bool
    /// The whole push payload, as it arrived.
    public let rawPayload: [AnyHashable: Any]
    /// The identifier CallKit knows the call by.
    public let callUUID: UUID

    /// Creates a call. The SDK builds these from VoIP pushes; tests and previews may build their own.
    public init(
        sessionId: String, callerUid: String, callerName: String, callerAvatar: URL? = nil, receiver: String,
        callType: PNCallType, isGroup: Bool, rawPayload: [AnyHashable: Any] = [:], callUUID: UUID = UUID()
    ) {
        self.sessionId = sessionId
        self.callerUid = callerUid
        self.callerName = callerName
        self.callerAvatar = callerAvatar
        self.receiver = receiver
        self.callType = callType
        self.isGroup = isGroup
        self.rawPayload = rawPayload
        self.callUUID = callUUID
    }

    /// Whether the call has video.
    public var isVideo: Bool { callType == .video }

    /// The session id, type and group flag (no names: descriptions end up in logs).
    public override var description: String {
        "IncomingCall(\(sessionId), \(callType.name)\(isGroup ? ", group" : ""))"
    }
}
