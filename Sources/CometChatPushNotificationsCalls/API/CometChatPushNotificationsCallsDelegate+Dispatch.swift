import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// Calls to the delegate's optional methods that work the same with Objective-C `optional`
/// requirements and with the default implementations used elsewhere.
extension CometChatPushNotificationsCallsDelegate {
    /// Calls `presentCall(_:)`; `false` when it is not implemented.
    func pnPresentCall(_ call: IncomingCall) -> Bool {
        #if canImport(ObjectiveC)
        return presentCall?(call) ?? false
        #else
        var answer = false
        let implemented = PNDelegateProbe.invoke { answer = presentCall(call) }
        return implemented && answer
        #endif
    }

    /// Calls `callDidEnd(_:reason:)` if it is implemented.
    func pnCallDidEnd(_ call: IncomingCall, _ reason: CallEndReason) {
        #if canImport(ObjectiveC)
        callDidEnd?(call, reason: reason)
        #else
        _ = PNDelegateProbe.invoke { callDidEnd(call, reason: reason) }
        #endif
    }
}
