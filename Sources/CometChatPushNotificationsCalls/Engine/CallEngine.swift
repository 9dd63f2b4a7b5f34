import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The incoming-call state machine of one SDK instance.
///
/// One owner: every transition runs under `state`'s lock and is synchronous, so a VoIP push is
/// reported to CallKit on the thread PushKit called us on, before that callback returns (the
/// VoIP rule). What follows a transition (CallKit end reports, delegate callbacks on the main
/// queue, status requests to the service) runs as ``CallEffect``s outside the lock.
final class CallEngine: Sendable {
    struct State {
        weak var sdk: CometChatPushNotifications?
        weak var mediaSession: PNCallMediaSession?
        var configured = false
        var ownership: PNPushKitOwnership = .sdk
        var callKitAvailability: PNCallKitAvailability = .automatic
        /// The call that rang first, or the only one.
        var current: CallRecord?
        /// A second call that came while `current` was in progress: ringing as a waiting call,
        /// or answered (with `current` on hold). It becomes `current` when `current` ends.
        var waiting: CallRecord?
        /// The ring timer of each ringing call.
        var ringTasks: [UUID: Task<Void, Never>] = [:]
        var outgoing: Set<String> = []
        var endedSessions: [String] = []
        var voipTokenSeen = false
        var loggedOut = false
        var audioActive = false

        /// The current call, then the waiting one.
        var records: [CallRecord] { [current, waiting].compactMap { $0 } }

        /// The call CallKit knows as `uuid`.
        func record(_ uuid: UUID) -> CallRecord? { records.first { $0.uuid == uuid } }

        /// The call with `sessionId`.
        func record(session sessionId: String) -> CallRecord? { records.first { $0.call.sessionId == sessionId } }

        /// Stores a changed record in the place it came from.
        mutating func update(_ record: CallRecord) {
            if current?.uuid == record.uuid {
                current = record
            } else if waiting?.uuid == record.uuid {
                waiting = record
            }
        }

        /// The answered call that is not on hold, else the current call.
        var foreground: CallRecord? {
            records.last { $0.phase == .active && !$0.onHold } ?? current
        }
    }

    /// How long a call rings before it is missed.
    static let ringTimeout: TimeInterval = 45
    /// How many ended session ids are remembered, to recognise late pushes about them.
    static let endedMemory = 32

    /// Whether CallKit is used: the app's ``PNConfiguration/callKitAvailability``, or the
    /// device's region when it leaves the choice to the SDK.
    var callKitUsable: Bool {
        switch state.withLock({ $0.callKitAvailability }) {
        case .automatic: return ports.callKit.isAvailable
        case .available: return true
        case .unavailable: return false
        }
    }

    let state: PNLocked<State>
    let ports: PNCallsPorts
    let clock: PNClock
    let logger: PNLogger
    let application: PNApplication
    let callbackQueue: DispatchQueue
    /// Missed-call notifications and their call-backs.
    let missedCalls: MissedCalls

    init(sdk: CometChatPushNotifications) {
        let platform = sdk.runtimePlatform
        ports = platform.productPorts[PNCallsPorts.self] ?? .live
        clock = platform.clock
        logger = platform.logger
        application = platform.application
        callbackQueue = platform.callbackQueue
        missedCalls = MissedCalls(sdk: sdk)
        var initial = State()
        initial.sdk = sdk
        state = PNLocked(initial)
    }

    var sdk: CometChatPushNotifications? { state.withLock { $0.sdk } }

    // MARK: Transitions shared by every ending

    /// Ends a call: forgets it (a waiting call becomes the current one when the current call
    /// ends), stops its ring timer, and lists what must follow.
    func finish(
        _ s: inout State, _ record: CallRecord, _ reason: CallEndReason, reportToCallKit: Bool, status: String? = nil,
        statusCompletion: (@Sendable (PNResult<Void>) -> Void)? = nil
    ) -> [CallEffect] {
        var effects: [CallEffect] = []
        if s.current?.uuid == record.uuid {
            s.current = s.waiting
            s.waiting = nil
        } else if s.waiting?.uuid == record.uuid {
            s.waiting = nil
        }
        s.endedSessions.append(record.call.sessionId)
        if s.endedSessions.count > Self.endedMemory { s.endedSessions.removeFirst() }
        if let task = s.ringTasks.removeValue(forKey: record.uuid) { effects.append(.cancelRingTimer(task)) }
        if reportToCallKit { effects.append(.reportEnded(record.uuid, reason.callKitReason)) }
        if record.isRinging { effects.append(.cancelMedia(record.call)) }
        if let status { effects.append(.sendStatus(sessionId: record.call.sessionId, status: status, completion: statusCompletion)) }
        effects.append(.callDidEnd(record.call, reason))
        logger.log(.info, "Call \(record.call.sessionId) ended: \(reason.name).")
        return effects
    }

    // MARK: Effects

    func run(_ effects: [CallEffect]) {
        for effect in effects {
            switch effect {
            case .reportEnded(let uuid, let reason):
                if callKitUsable {
                    ports.callKit.reportCallEnded(uuid, at: clock.now(), reason: reason)
                } else {
                    ports.callKit.removeFallbackNotification(uuid)
                }
            case .startRingTimer(let uuid):
                startRingTimer(uuid)
            case .cancelRingTimer(let task):
                task.cancel()
            case .sendStatus(let sessionId, let status, let completion):
                sendStatus(status, sessionId: sessionId, completion: completion)
            case .callDidEnd(let call, let reason):
                onMain { engine in
                    (engine.sdk?.delegate as? CometChatPushNotificationsCallsDelegate)?.pnCallDidEnd(call, reason)
                }
                // Keyed on the ending, not on which record the call was: any call that rang here
                // and ended unanswered is a missed call.
                if MissedCalls.isMissed(reason) { missedCalls.post(call) }
            case .holdChanged(let call, let onHold):
                onMain { engine in
                    (engine.sdk?.delegate as? CometChatPushNotificationsCallsDelegate)?.pnCallDidChangeHold(call, onHold)
                }
            case .audioLive(let call):
                onMain { engine in engine.state.withLock { $0.mediaSession }?.audioSessionDidActivate(for: call) }
            case .prepareMedia(let call):
                onMain { engine in engine.state.withLock { $0.mediaSession }?.prepare(for: call) }
            case .cancelMedia(let call):
                onMain { engine in engine.state.withLock { $0.mediaSession }?.cancelPreparation(for: call) }
            }
        }
    }

    /// Runs `body` on the callback queue (the main queue on a device), counted as SDK work.
    func onMain(_ body: @escaping @Sendable (CallEngine) -> Void) {
        let sdk = self.sdk
        sdk?.beginWork()
        callbackQueue.async { [self] in
            body(self)
            sdk?.endWork()
        }
    }

    // MARK: Ring timeout

    private func startRingTimer(_ uuid: UUID) {
        let clock = self.clock
        // Pending work until it fires or is cancelled, like a retry waiting out its back-off:
        // whoever waits for the SDK to settle then sees the timer's sleep begun, not yet to come.
        let sdk = self.sdk
        sdk?.beginWork()
        let task = Task { [weak self, weak sdk] in
            defer { sdk?.endWork() }
            do { try await clock.sleep(seconds: Self.ringTimeout) } catch { return }
            self?.ringTimedOut(uuid)
        }
        let keep = state.withLock { s -> Bool in
            guard s.record(uuid) != nil else { return false }
            s.ringTasks[uuid]?.cancel()
            s.ringTasks[uuid] = task
            return true
        }
        if !keep { task.cancel() }
    }

    private func ringTimedOut(_ uuid: UUID) {
        let effects = state.withLock { s -> [CallEffect] in
            guard let record = s.record(uuid), record.phase == .ringing || record.phase == .reporting else { return [] }
            s.ringTasks[uuid] = nil
            return finish(&s, record, .timedOut, reportToCallKit: true, status: "unanswered")
        }
        run(effects)
    }
}
