#if canImport(ObjectiveC)
import Foundation
import CometChatPushNotificationsSwift

// The Objective-C surface of `CometChatPushNotificationsCalls`: each method forwards to the
// Swift method it names, under the selector the docs' snippets use. They are unavailable in
// Swift (`obsoleted: 1`), where the Swift methods are called directly.
extension CometChatPushNotificationsCalls {
    /// ``shared`` for Objective-C.
    @available(swift, obsoleted: 1)
    @available(iOSApplicationExtension, unavailable)
    @objc(shared)
    public static var objcShared: CometChatPushNotificationsCalls { shared }

    /// ``missedCallCategoryIdentifier`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(missedCallCategoryIdentifier)
    public static var objcMissedCallCategoryIdentifier: String { missedCallCategoryIdentifier }

    /// ``callBackActionIdentifier`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(callBackActionIdentifier)
    public static var objcCallBackActionIdentifier: String { callBackActionIdentifier }

    /// ``handleVoIPToken(_:)-swift.method`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(handleVoIPToken:)
    public func objcHandleVoIPToken(_ token: Data) { handleVoIPToken(token) }

    /// ``invalidateVoIPToken()`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(invalidateVoIPToken)
    public func objcInvalidateVoIPToken() { invalidateVoIPToken() }

    /// ``handleIncomingVoIPPush(_:completion:)-swift.method`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(handleIncomingVoIPPush:completion:)
    public func objcHandleIncomingVoIPPush(_ payload: [AnyHashable: Any], completion: @escaping () -> Void) {
        handleIncomingVoIPPush(payload, completion: completion)
    }

    /// ``handleIncomingVoIPPush(_:mustReport:completion:)-swift.method`` for Objective-C: pass
    /// `metadata.mustReport` from iOS 26.4's
    /// `pushRegistry:didReceiveIncomingVoIPPushWithPayload:metadata:withCompletionHandler:`.
    @available(swift, obsoleted: 1)
    @objc(handleIncomingVoIPPush:mustReport:completion:)
    public func objcHandleIncomingVoIPPush(_ payload: [AnyHashable: Any], mustReport: Bool, completion: @escaping () -> Void) {
        handleIncomingVoIPPush(payload, mustReport: mustReport, completion: completion)
    }

    /// `decline(sessionId:completion:)` for Objective-C: the completion gets `nil` when the
    /// service took the decline, or the error.
    @available(swift, obsoleted: 1)
    @objc(declineWithSessionId:completion:)
    public func objcDecline(sessionId: String, completion: (@Sendable (PNError?) -> Void)?) {
        decline(sessionId: sessionId) { result in
            switch result {
            case .success: completion?(nil)
            case .failure(let error): completion?(error)
            }
        }
    }

    /// ``reportCallEnded(sessionId:reason:)-swift.method`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(reportCallEndedWithSessionId:reason:)
    public func objcReportCallEnded(sessionId: String, reason: CallEndReason) {
        reportCallEnded(sessionId: sessionId, reason: reason)
    }

    /// ``reportOutgoingCallStarted(sessionId:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(reportOutgoingCallStartedWithSessionId:)
    public func objcReportOutgoingCallStarted(sessionId: String) { reportOutgoingCallStarted(sessionId: sessionId) }

    /// ``requestCallPermissions(completion:)`` for Objective-C: whether recording is allowed.
    @available(swift, obsoleted: 1)
    @objc(requestCallPermissionsWithCompletion:)
    public func objcRequestCallPermissions(completion: (@Sendable (Bool) -> Void)?) {
        requestCallPermissions(completion: completion)
    }

    /// ``activeCall`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(activeCall)
    public var objcActiveCall: IncomingCall? { activeCall }

    /// ``mediaSession`` for Objective-C. Held weakly: keep a strong reference to it.
    @available(swift, obsoleted: 1)
    @objc(mediaSession)
    public var objcMediaSession: PNCallMediaSession? {
        get { mediaSession }
        set { mediaSession = newValue }
    }
}
#endif
