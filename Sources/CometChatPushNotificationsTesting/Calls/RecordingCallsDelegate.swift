import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

/// A delegate that adopts the Calls delegate too: records `presentCall(_:)`,
/// `callDidEnd(_:reason:)`, `callDidChangeHold(_:onHold:)` and `callBack(_:)` (as
/// `.product("presentCall <sessionId>")`, `.product("callDidEnd <sessionId> <reason>")`,
/// `.product("callDidChangeHold <sessionId> <onHold>")` and `.product("callBack <sessionId>")`)
/// and answers `presentCall` with ``presentCallAnswer``.
#if canImport(ObjectiveC)
@objc(PNRecordingCallsDelegate)
#endif
open class RecordingCallsDelegate: RecordingDelegate, CometChatPushNotificationsCallsDelegate, @unchecked Sendable {
    // @unchecked: all mutable state is inside `calls`.
    private struct Calls {
        var answer = true
        var presented: [IncomingCall] = []
        var ended: [(IncomingCall, CallEndReason)] = []
        var holds: [(IncomingCall, Bool)] = []
        var calledBack: [PNMissedCall] = []
        var offMain = 0
    }
    private let calls = PNLocked(Calls())

    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    private var onMainQueue: Bool { DispatchQueue.getSpecific(key: Self.mainQueueKey) == true }

    /// Creates the recorder.
    public override init() {
        _ = Self.mainQueueKey
        super.init()
    }

    /// What `presentCall(_:)` returns. Default `true`.
    public var presentCallAnswer: Bool {
        get { calls.withLock { $0.answer } }
        set { calls.withLock { $0.answer = newValue } }
    }
    /// Calls presented, in order.
    public var presentedCalls: [IncomingCall] { calls.withLock { $0.presented } }
    /// Calls ended and why, in order.
    public var endedCalls: [(call: IncomingCall, reason: CallEndReason)] { calls.withLock { $0.ended.map { ($0.0, $0.1) } } }
    /// Reasons of ended calls, in order.
    public var endReasons: [CallEndReason] { endedCalls.map(\.reason) }
    /// Hold changes, in order: the call and whether it went on hold.
    public var holdChanges: [(call: IncomingCall, onHold: Bool)] { calls.withLock { $0.holds.map { ($0.0, $0.1) } } }
    /// Missed calls the user called back (a tap on the notification or its Call back action), in
    /// order.
    public var calledBack: [PNMissedCall] { calls.withLock { $0.calledBack } }
    /// Calls callbacks that arrived off the main queue (the SDK promises none).
    public var callbacksOffMain: Int { calls.withLock { $0.offMain } }

    /// Records the call and answers ``presentCallAnswer``.
    open func presentCall(_ call: IncomingCall) -> Bool {
        let answer = calls.withLock { s -> Bool in
            s.presented.append(call)
            if !onMainQueue { s.offMain += 1 }
            return s.answer
        }
        record(.product("presentCall \(call.sessionId)"))
        return answer
    }

    /// Records the ending.
    open func callDidEnd(_ call: IncomingCall, reason: CallEndReason) {
        calls.withLock {
            $0.ended.append((call, reason))
            if !onMainQueue { $0.offMain += 1 }
        }
        record(.product("callDidEnd \(call.sessionId) \(reason.name)"))
    }

    /// Records the hold change (as `.product("callDidChangeHold <sessionId> <onHold>")`).
    open func callDidChangeHold(_ call: IncomingCall, onHold: Bool) {
        calls.withLock {
            $0.holds.append((call, onHold))
            if !onMainQueue { $0.offMain += 1 }
        }
        record(.product("callDidChangeHold \(call.sessionId) \(onHold)"))
    }

    /// Records the call-back.
    open func callBack(_ call: PNMissedCall) {
        calls.withLock {
            $0.calledBack.append(call)
            if !onMainQueue { $0.offMain += 1 }
        }
        record(.product("callBack \(call.sessionId)"))
    }
}
