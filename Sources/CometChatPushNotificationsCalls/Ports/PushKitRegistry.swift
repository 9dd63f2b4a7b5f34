import Foundation

/// A VoIP push as PushKit delivered it: the payload dictionary, untouched.
public struct PNVoIPPush: @unchecked Sendable {
    // @unchecked: an immutable snapshot of property-list values (strings, numbers, arrays, dictionaries).

    /// `PKPushPayload.dictionaryPayload`.
    public let payload: [AnyHashable: Any]

    /// Wraps a payload.
    public init(payload: [AnyHashable: Any]) { self.payload = payload }
}

/// What the registry reports, each event with what it needs (the push carries its completion).
public struct PNPushKitEvents: Sendable {
    /// PushKit issued or changed the VoIP token (`didUpdate pushCredentials`), as raw bytes.
    public var tokenUpdated: @Sendable (Data) -> Void
    /// PushKit invalidated the VoIP token (`didInvalidatePushTokenFor`).
    public var tokenInvalidated: @Sendable () -> Void
    /// A VoIP push arrived. The handler reports it to CallKit before it returns and calls
    /// `completion` once CallKit has answered the report.
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
