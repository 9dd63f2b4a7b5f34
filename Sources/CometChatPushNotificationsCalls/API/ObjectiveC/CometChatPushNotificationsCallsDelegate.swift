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
    /// declined elsewhere, hung up, failed or turned away as busy. With two calls (call
    /// waiting), each ends on its own.
    @objc(callDidEnd:reason:) optional func callDidEnd(_ call: IncomingCall, reason: CallEndReason)
    /// `call` went on hold (`onHold` true) or came off it, through CallKit: the user's Hold or
    /// Swap, or Hold & Accept of a call waiting. Pause or resume its media.
    @objc(callDidChangeHold:onHold:) optional func callDidChangeHold(_ call: IncomingCall, onHold: Bool)
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

    /// Calls `callDidChangeHold(_:onHold:)` if it is implemented.
    func pnCallDidChangeHold(_ call: IncomingCall, _ onHold: Bool) {
        callDidChangeHold?(call, onHold: onHold)
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
    /// declined elsewhere, hung up, failed or turned away as busy. With two calls (call
    /// waiting), each ends on its own.
    func callDidEnd(_ call: IncomingCall, reason: CallEndReason)
    /// `call` went on hold (`onHold` true) or came off it, through CallKit: the user's Hold or
    /// Swap, or Hold & Accept of a call waiting. Pause or resume its media.
    func callDidChangeHold(_ call: IncomingCall, onHold: Bool)
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
    public func callDidChangeHold(_ call: IncomingCall, onHold: Bool) { PNDelegateProbe.markUnimplemented() }
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

    /// Calls `callDidChangeHold(_:onHold:)` if it is implemented.
    func pnCallDidChangeHold(_ call: IncomingCall, _ onHold: Bool) {
        _ = PNDelegateProbe.invoke { callDidChangeHold(call, onHold: onHold) }
    }

    /// Calls `callBack(_:)`; `false` when it is not implemented.
    func pnCallBack(_ call: PNMissedCall) -> Bool {
        PNDelegateProbe.invoke { callBack(call) }
    }
}
#endif
