#if canImport(ObjectiveC)
import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

// The Calls delegate protocol, declared twice because Swift requires it: with Objective-C
// `optional` requirements where there is Objective-C, and with default implementations
// elsewhere (`#if` cannot wrap `@objc optional`). Both declare the same requirements, in the
// same order, and the same `pn…` calls; `ObjectiveCSurfaceTests` fails when they differ.

/// Receives calls: adopt it on the object you set as `CometChatPushNotifications.shared.delegate`.
/// Every method is optional and called on the main queue.
@objc(CometChatPushNotificationsCallsDelegate)
public protocol CometChatPushNotificationsCallsDelegate: CometChatPushNotificationsDelegate {
    /// The user answered `call`: join it with your calls SDK and show your call screen.
    /// Return `false` if you cannot; the call then ends as ``CallEndReason/failed``, as it does
    /// when this method is not implemented.
    @objc(presentCall:) optional func presentCall(_ call: IncomingCall) -> Bool
    /// `call` ended, for any reason: declined, cancelled by the caller, missed, answered or
    /// declined elsewhere, hung up, failed or turned away as busy.
    @objc(callDidEnd:reason:) optional func callDidEnd(_ call: IncomingCall, reason: CallEndReason)
    /// The user tapped a missed call's notification, or its Call back action: call `call`'s
    /// caller back (the group, for a group call) with your calls SDK. A tap that launched the
    /// app waits until a Calls delegate is set.
    @objc(callBack:) optional func callBack(_ call: PNMissedCall)
}

/// Calls to the delegate's optional methods that work the same with Objective-C `optional`
/// requirements and with the default implementations used elsewhere.
extension CometChatPushNotificationsCallsDelegate {
    /// Calls `presentCall(_:)`; `false` when it is not implemented.
    func pnPresentCall(_ call: IncomingCall) -> Bool {
        presentCall?(call) ?? false
    }

    /// Calls `callDidEnd(_:reason:)` if it is implemented.
    func pnCallDidEnd(_ call: IncomingCall, _ reason: CallEndReason) {
        callDidEnd?(call, reason: reason)
    }

    /// Calls `callBack(_:)`; `false` when it is not implemented.
    func pnCallBack(_ call: PNMissedCall) -> Bool {
        callBack?(call) != nil
    }
}
#else
import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// Receives calls: adopt it on the object you set as `CometChatPushNotifications.shared.delegate`.
/// Every method is optional (it has a default) and called on the main queue.
public protocol CometChatPushNotificationsCallsDelegate: CometChatPushNotificationsDelegate {
    /// The user answered `call`: join it with your calls SDK and show your call screen.
    /// Return `false` if you cannot; the call then ends as ``CallEndReason/failed``, as it does
    /// when this method is not implemented.
    func presentCall(_ call: IncomingCall) -> Bool
    /// `call` ended, for any reason: declined, cancelled by the caller, missed, answered or
    /// declined elsewhere, hung up, failed or turned away as busy.
    func callDidEnd(_ call: IncomingCall, reason: CallEndReason)
    /// The user tapped a missed call's notification, or its Call back action: call `call`'s
    /// caller back (the group, for a group call) with your calls SDK. A tap that launched the
    /// app waits until a Calls delegate is set.
    func callBack(_ call: PNMissedCall)
}

extension CometChatPushNotificationsCallsDelegate {
    /// Not implemented: the answered call fails.
    public func presentCall(_ call: IncomingCall) -> Bool {
        PNDelegateProbe.markUnimplemented()
        return false
    }
    /// Not implemented.
    public func callDidEnd(_ call: IncomingCall, reason: CallEndReason) { PNDelegateProbe.markUnimplemented() }
    /// Not implemented.
    public func callBack(_ call: PNMissedCall) { PNDelegateProbe.markUnimplemented() }
}

/// Calls to the delegate's optional methods that work the same with Objective-C `optional`
/// requirements and with the default implementations used elsewhere.
extension CometChatPushNotificationsCallsDelegate {
    /// Calls `presentCall(_:)`; `false` when it is not implemented.
    func pnPresentCall(_ call: IncomingCall) -> Bool {
        var answer = false
        let implemented = PNDelegateProbe.invoke { answer = presentCall(call) }
        return implemented && answer
    }

    /// Calls `callDidEnd(_:reason:)` if it is implemented.
    func pnCallDidEnd(_ call: IncomingCall, _ reason: CallEndReason) {
        _ = PNDelegateProbe.invoke { callDidEnd(call, reason: reason) }
    }

    /// Calls `callBack(_:)`; `false` when it is not implemented.
    func pnCallBack(_ call: PNMissedCall) -> Bool {
        PNDelegateProbe.invoke { callBack(call) }
    }
}
#endif
