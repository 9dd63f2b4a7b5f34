import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The Calls product's entry point: what the app tells the SDK about calls.
///
/// Ringing needs no code: `initialize(config:)` installs the product, which creates the PushKit
/// registry, reports every VoIP push to CallKit and calls your delegate's `presentCall(_:)` when
/// the user answers. Use this class to decline from your own UI, to report calls your app ended,
/// and, with `pushKitOwnership: .app`, to forward PushKit's token and pushes.
///
/// Every method may be called from any thread.
#if canImport(ObjectiveC)
@objc(CometChatPushNotificationsCalls)
#endif
public final class CometChatPushNotificationsCalls: NSObject, Sendable {
    /// The SDK instance these calls belong to.
    public let sdk: CometChatPushNotifications

    /// The Calls product of `CometChatPushNotifications.shared`.
    @available(iOSApplicationExtension, unavailable)
    public static let shared = CometChatPushNotificationsCalls(sdk: .shared)

    /// The Calls product of `sdk` (tests create SDK instances on a simulated platform).
    public init(sdk: CometChatPushNotifications) {
        self.sdk = sdk
        super.init()
    }

    var engine: CallEngine { CallsRegistry.engine(for: sdk) }

    // MARK: Missed calls

    /// The category identifier of missed-call notifications, with the Call back action.
    /// `initialize` adds it to the SDK's categories; apps that set their own categories after
    /// `initialize` include the SDK's (`CometChatPushNotifications.notificationCategories`).
    public static let missedCallCategoryIdentifier = "MissedCallCategory"

    /// The identifier of a missed-call notification's Call back action.
    public static let callBackActionIdentifier = "CALL_BACK_ACTION"

    // MARK: PushKit owned by the app

    /// With `pushKitOwnership: .app`: hand over the token from
    /// `pushRegistry(_:didUpdate:for:)` (`pushCredentials.token`). It is registered as the `.voip`
    /// token for the logged-in user.
    public func handleVoIPToken(_ token: Data) { engine.voipTokenArrived(token) }

    /// With `pushKitOwnership: .app`: call from `pushRegistry(_:didInvalidatePushTokenFor:)`.
    public func invalidateVoIPToken() { engine.voipTokenInvalidated() }

    /// With `pushKitOwnership: .app`: call from
    /// `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)` with
    /// `payload.dictionaryPayload` and PushKit's completion, and return. The SDK reports the push
    /// to CallKit before this method returns (every push, even one it then ends at once) and
    /// calls `completion` after CallKit has answered.
    public func handleIncomingVoIPPush(_ payload: [AnyHashable: Any], completion: @escaping () -> Void) {
        handleIncomingVoIPPush(payload, mustReport: true, completion: completion)
    }

    /// Hands over a VoIP push the app's own registry received through iOS 26.4's
    /// `pushRegistry(_:didReceiveIncomingVoIPPushWith:metadata:withCompletionHandler:)`, with
    /// `metadata.mustReport`. When it is false (the app is in the foreground or already has a
    /// call) only a new call is reported to CallKit; a cancel, an end, an answer on another
    /// device or a duplicate is handled without a report, so no call screen flashes. When it is
    /// true this is ``handleIncomingVoIPPush(_:completion:)-swift.method``.
    public func handleIncomingVoIPPush(_ payload: [AnyHashable: Any], mustReport: Bool, completion: @escaping () -> Void) {
        let box = PushKitCompletion(completion)
        engine.handlePush(PNVoIPPush(payload: payload, mustReport: mustReport)) { box.call() }
    }

    // MARK: The app's call UI

    /// Declines a ringing call from the app's own UI: CallKit stops ringing and the caller is
    /// told `rejected`. A call that does not ring here is declined on the service all the same.
    /// `completion` gets the service's answer, on the main queue. To await it, use
    /// ``declineAndWait(sessionId:)-swift.method``.
    ///
    /// Fails with `.notInitialised` before `initialize(config:)`, and with
    /// `.productNotInstalled` when `initialize` did not install the Calls
    /// product (its class was stripped from the app: link the product to the app target).
    public func decline(sessionId: String, completion: (@Sendable (PNResult<Void>) -> Void)? = nil) {
        let engine = self.engine
        if let error = declineRefusal(engine) {
            if let completion { engine.callbackQueue.async { completion(.failure(error)) } }
            return
        }
        engine.decline(sessionId: sessionId, completion: completion)
    }

    /// Declines a ringing call, as ``decline(sessionId:completion:)-swift.method`` does, and
    /// returns once the service has taken the decline; throws its error, `.notInitialised` or
    /// `.productNotInstalled` (a `PNError`). CallKit stops ringing before the call suspends.
    public func declineAndWait(sessionId: String) async throws {
        let engine = self.engine
        if let error = declineRefusal(engine) { throw error }
        try await withCheckedContinuation { continuation in
            engine.decline(sessionId: sessionId) { continuation.resume(returning: $0) }
        }.get()
    }

    /// Why a decline cannot be sent: `initialize` has not run, or did not install the product.
    private func declineRefusal(_ engine: CallEngine) -> PNError? {
        guard !engine.state.withLock({ $0.configured }) else { return nil }
        return sdk.isInitialised
            ? PNError(
                code: .productNotInstalled,
                message: "initialize(config:) did not install the Calls product: link CometChatPushNotificationsCalls to the app target.")
            : PNError(code: .notInitialised, message: "CometChatPushNotifications.initialize(config:) has not run.")
    }

    /// Tells the SDK a call ended outside CallKit's buttons: a call the app hung up in its own UI,
    /// an answered call the other side ended, or an outgoing call the app placed. CallKit is told,
    /// and `callDidEnd(_:reason:)` follows for a call the SDK rang.
    public func reportCallEnded(sessionId: String, reason: CallEndReason) {
        engine.reportCallEnded(sessionId: sessionId, reason: reason)
    }

    /// Tells the SDK the app placed a call, until ``reportCallEnded(sessionId:reason:)-swift.method``
    /// ends it. An incoming call then rings beside it (CallKit, which does not know your call,
    /// shows Accept and Decline): when the user answers, hold or end your call in
    /// `presentCall(_:)`. A third call is turned away busy.
    public func reportOutgoingCallStarted(sessionId: String) {
        engine.reportOutgoingCallStarted(sessionId: sessionId)
    }

    /// Asks for the microphone (an answered call needs it). `completion` gets whether recording is
    /// allowed, on the main queue. `initialize` asks already unless `requestCallPermissions` is off.
    /// To await the answer, use ``requestCallPermissionsAndWait()``.
    public func requestCallPermissions(completion: (@Sendable (Bool) -> Void)? = nil) {
        engine.requestMicrophone(completion)
    }

    /// Asks for the microphone, as ``requestCallPermissions(completion:)`` does, and returns
    /// whether recording is allowed.
    @discardableResult
    public func requestCallPermissionsAndWait() async -> Bool {
        let engine = self.engine
        return await withCheckedContinuation { continuation in
            engine.requestMicrophone { continuation.resume(returning: $0) }
        }
    }

    /// The call ringing or in progress, if any; with two calls (call waiting), the answered call
    /// that is not on hold.
    public var activeCall: IncomingCall? { engine.state.withLock { $0.foreground?.call } }

    /// A second call that came while another was in progress: ringing as a waiting call, or
    /// answered with the first on hold. `nil` with one call or none.
    public var waitingCall: IncomingCall? { engine.state.withLock { $0.waiting?.call } }

    /// Connects the app's media while a call rings. Held weakly: keep a strong reference to it.
    public var mediaSession: PNCallMediaSession? {
        get { engine.state.withLock { $0.mediaSession } }
        set { engine.state.withLock { $0.mediaSession = newValue } }
    }
}

/// PushKit's completion, carried to CallKit's report completion.
private struct PushKitCompletion: @unchecked Sendable {
    // @unchecked: PushKit's completion may be called from any thread; it is called exactly once.
    let call: () -> Void
    init(_ call: @escaping () -> Void) { self.call = call }
}

extension CometChatPushNotifications {
    /// The Calls product of this SDK instance.
    public var calls: CometChatPushNotificationsCalls { CometChatPushNotificationsCalls(sdk: self) }
}
