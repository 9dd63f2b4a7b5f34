import Foundation

/// A VoIP push as PushKit delivered it: the payload dictionary, untouched.
public struct PNVoIPPush: @unchecked Sendable {
    // @unchecked: an immutable snapshot of property-list values (strings, numbers, arrays, dictionaries).

    /// `PKPushPayload.dictionaryPayload`.
    public let payload: [AnyHashable: Any]
    /// Whether iOS requires this push to be reported to CallKit: `PKVoIPPushMetadata.mustReport`
    /// on iOS 26.4 and later (false while the app is in the foreground or already has a call),
    /// always true before.
    public let mustReport: Bool

    /// Wraps a payload; `mustReport` as iOS gave it (true before iOS 26.4).
    public init(payload: [AnyHashable: Any], mustReport: Bool = true) {
        self.payload = payload
        self.mustReport = mustReport
    }
}

/// What the registry reports, each event with what it needs (the push carries its completion).
public struct PNPushKitEvents: Sendable {
    /// PushKit issued or changed the VoIP token (`didUpdate pushCredentials`), as raw bytes.
    public var tokenUpdated: @Sendable (Data) -> Void
    /// PushKit invalidated the VoIP token (`didInvalidatePushTokenFor`).
    public var tokenInvalidated: @Sendable () -> Void
    /// A VoIP push arrived. The handler reports it to CallKit before it returns and calls
    /// `completion` once CallKit has answered the report; a push whose ``PNVoIPPush/mustReport``
    /// is false is reported only when it rings a new call.
    public var pushReceived: @Sendable (PNVoIPPush, _ completion: @escaping @Sendable () -> Void) -> Void

    /// Creates the events.
    public init(
        tokenUpdated: @escaping @Sendable (Data) -> Void,
        tokenInvalidated: @escaping @Sendable () -> Void,
        pushReceived: @escaping @Sendable (PNVoIPPush, _ completion: @escaping @Sendable () -> Void) -> Void
    ) {
        self.tokenUpdated = tokenUpdated
        self.tokenInvalidated = tokenInvalidated
        self.pushReceived = pushReceived
    }
}

/// The app's PushKit registry (`PKPushRegistry` on iOS), when the SDK owns it.
public protocol PNPushKitRegistry: Sendable {
    /// Creates the registry with `desiredPushTypes = [.voIP]` and starts delivering `events`,
    /// synchronously: iOS requires the registry by the end of launch. A token PushKit already
    /// cached is delivered through `tokenUpdated` too.
    func start(_ events: PNPushKitEvents)
}
