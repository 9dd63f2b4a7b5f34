import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

#if canImport(ObjectiveC)
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
}
#else
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
}

extension CometChatPushNotificationsCallsDelegate {
    /// Not implemented: the answered call fails.
    public func presentCall(_ call: IncomingCall) -> Bool {
        PNDelegateProbe.markUnimplemented()
        return false
    }
    /// Not implemented.
    public func callDidEnd(_ call: IncomingCall, reason: CallEndReason) { PNDelegateProbe.markUnimplemented() }
}
#endif
