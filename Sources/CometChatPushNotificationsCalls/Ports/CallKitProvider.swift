import Foundation

/// How CallKit presents the app's calls, in the SDK's own terms (`CXProviderConfiguration`).
public struct PNCallKitConfiguration: Sendable, Equatable {
    /// An image in the app's asset catalog, drawn as a template on the call screen.
    public var iconTemplateImageName: String?
    /// A sound file in the app bundle to ring with; `nil` uses the system ringtone.
    public var ringtone: String?
    /// Whether calls appear in the Phone app's Recents.
    public var includesCallsInRecents: Bool
    /// Whether the app supports video calls.
    public var supportsVideo: Bool
    /// Call waiting: calls can be held, and a second call rings beside one in progress (two
    /// call groups of one call each), so the system offers Hold & Accept, End & Accept and
    /// Decline.
    public var supportsHolding: Bool

    /// Creates a configuration.
    public init(
        iconTemplateImageName: String? = nil, ringtone: String? = nil, includesCallsInRecents: Bool = true, supportsVideo: Bool = true,
        supportsHolding: Bool = true
    ) {
        self.iconTemplateImageName = iconTemplateImageName
        self.ringtone = ringtone
        self.includesCallsInRecents = includesCallsInRecents
        self.supportsVideo = supportsVideo
        self.supportsHolding = supportsHolding
    }
}

/// One incoming call to report (`CXCallUpdate` plus its UUID).
public struct PNIncomingCallReport: Sendable, Equatable {
    /// The call's CallKit identifier.
    public var uuid: UUID
    /// The name on the call screen.
    public var callerName: String
    /// The generic handle (a user or group id), used to call back from Recents.
    public var handle: String
    /// Whether the call has video.
    public var hasVideo: Bool

    /// Creates a report.
    public init(uuid: UUID, callerName: String, handle: String, hasVideo: Bool) {
        self.uuid = uuid
        self.callerName = callerName
        self.handle = handle
        self.hasVideo = hasVideo
    }
}

/// Why CallKit refused to show a reported call (`CXErrorCodeIncomingCallError`).
public enum PNCallReportError: Error, Sendable, Equatable {
    /// Do Not Disturb or a Focus filtered the call.
    case filteredByDoNotDisturb
    /// The caller is on the block list.
    case filteredByBlockList
    /// A call with this UUID was already reported.
    case callUUIDAlreadyExists
    /// The app is not entitled to report calls.
    case unentitled
    /// Anything else, with CallKit's description.
    case other(String)
}

/// Why a call ended, in CallKit's terms (`CXCallEndedReason`).
public enum PNCallKitEndedReason: String, Sendable, Equatable {
    /// Something went wrong.
    case failed
    /// The other side ended the call.
    case remoteEnded
    /// Nobody answered.
    case unanswered
    /// Answered on another device.
    case answeredElsewhere
    /// Declined on another device.
    case declinedElsewhere
}

/// What CallKit's provider tells the SDK (`CXProviderDelegate`). The answer and end actions
/// carry a `done` callback: `true` fulfils the action, `false` fails it.
public struct PNCallKitActions: Sendable {
    /// The user answered (`CXAnswerCallAction`).
    public var answer: @Sendable (UUID, _ done: @escaping @Sendable (Bool) -> Void) -> Void
    /// The user declined a ringing call or hung up (`CXEndCallAction`).
    public var end: @Sendable (UUID, _ done: @escaping @Sendable (Bool) -> Void) -> Void
    /// The user muted or unmuted (`CXSetMutedCallAction`); returns whether to fulfil.
    public var setMuted: @Sendable (UUID, Bool) -> Bool
    /// The user put a call on hold or took it off (`CXSetHeldCallAction`: the Hold button, Hold
    /// & Accept, Swap); returns whether to fulfil.
    public var setHeld: @Sendable (UUID, Bool) -> Bool
    /// CallKit activated the audio session (`provider(_:didActivate:)`).
    public var audioActivated: @Sendable () -> Void
    /// CallKit deactivated the audio session (`provider(_:didDeactivate:)`).
    public var audioDeactivated: @Sendable () -> Void
    /// CallKit reset the provider: every call is gone (`providerDidReset(_:)`).
    public var reset: @Sendable () -> Void

    /// Creates the actions. Without `setHeld`, holds are refused.
    public init(
        answer: @escaping @Sendable (UUID, _ done: @escaping @Sendable (Bool) -> Void) -> Void,
        end: @escaping @Sendable (UUID, _ done: @escaping @Sendable (Bool) -> Void) -> Void,
        setMuted: @escaping @Sendable (UUID, Bool) -> Bool,
        setHeld: @escaping @Sendable (UUID, Bool) -> Bool = { _, _ in false },
        audioActivated: @escaping @Sendable () -> Void,
        audioDeactivated: @escaping @Sendable () -> Void,
        reset: @escaping @Sendable () -> Void
    ) {
        self.answer = answer
        self.end = end
        self.setMuted = setMuted
        self.setHeld = setHeld
        self.audioActivated = audioActivated
        self.audioDeactivated = audioDeactivated
        self.reset = reset
    }
}

/// CallKit (`CXProvider` and `CXCallController` on iOS).
public protocol PNCallKitProvider: Sendable {
    /// Whether CallKit may be used here (it is not in some regions, such as China).
    var isAvailable: Bool { get }
    /// Creates the provider with `configuration` and routes its actions to `actions`.
    func configure(_ configuration: PNCallKitConfiguration, actions: PNCallKitActions)
    /// Reports an incoming call. Must be called synchronously inside the PushKit callback;
    /// `completion` runs once the system allowed (`nil`) or refused the call.
    func reportNewIncomingCall(_ report: PNIncomingCallReport, completion: @escaping @Sendable (PNCallReportError?) -> Void)
    /// Tells CallKit a call ended without a user action on this device.
    func reportCallEnded(_ uuid: UUID, at date: Date, reason: PNCallKitEndedReason)
    /// Asks CallKit to end a call, as the user would (`CXEndCallAction` through `CXCallController`);
    /// the provider's `end` action follows. `completion` tells whether the request was accepted.
    func requestEndCall(_ uuid: UUID, completion: @escaping @Sendable (Bool) -> Void)
    /// Where CallKit is unavailable: shows a notification for the incoming call instead.
    func showFallbackNotification(_ report: PNIncomingCallReport)
    /// Removes the fallback notification of a call that stopped ringing.
    func removeFallbackNotification(_ uuid: UUID)
}
