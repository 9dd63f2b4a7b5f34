import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension CallEngine {
    /// CallKit's provider actions, routed to this engine (weakly: the ports outlive processes).
    func makeActions() -> PNCallKitActions {
        PNCallKitActions(
            answer: { [weak self] uuid, done in
                guard let self else { return done(false) }
                self.answer(uuid, done: done)
            },
            end: { [weak self] uuid, done in
                guard let self else { return done(true) }
                self.endAction(uuid, done: done)
            },
            setMuted: { [weak self] uuid, muted in self?.setMuted(uuid, muted) ?? false },
            setHeld: { [weak self] uuid, onHold in self?.setHeld(uuid, onHold) ?? false },
            audioActivated: { [weak self] in self?.audioActivated() },
            audioDeactivated: { [weak self] in self?.audioDeactivated() },
            reset: { [weak self] in self?.providerReset() })
    }

    /// The user answered: `presentCall(_:)` on the main queue decides whether the call goes on.
    /// A waiting call is answered after CallKit held or ended the other one (Hold & Accept,
    /// End & Accept), each through its own action.
    func answer(_ uuid: UUID, done: @escaping @Sendable (Bool) -> Void) {
        let (call, timer) = state.withLock { s -> (IncomingCall?, Task<Void, Never>?) in
            guard var record = s.record(uuid), record.phase == .ringing || record.phase == .reporting else {
                return (nil, nil)
            }
            record.phase = .answering
            s.update(record)
            return (record.call, s.ringTasks.removeValue(forKey: uuid))
        }
        timer?.cancel()
        guard let call else { return done(false) }
        onMain { engine in
            let delegate = engine.sdk?.delegate as? CometChatPushNotificationsCallsDelegate
            let presented = delegate?.pnPresentCall(call) ?? false
            if delegate == nil { engine.logger.log(.error, "A call was answered but no CometChatPushNotificationsCallsDelegate is set.") }
            let (effects, audioLive) = engine.state.withLock { s -> ([CallEffect]?, Bool) in
                guard var record = s.record(uuid), record.phase == .answering else { return (nil, false) }
                if presented {
                    record.phase = .active
                    s.update(record)
                    return ([], s.audioActive)
                }
                return (engine.finish(&s, record, .failed, reportToCallKit: true), false)
            }
            let fulfil = presented && effects?.isEmpty == true
            // Rule 12: category and mode before the answer is fulfilled; audio starts at
            // activation. A call answered while another one (now on hold) keeps the session
            // active finds it configured and active already: CallKit does not activate it again.
            if fulfil, !audioLive { engine.ports.audioSession.configureForCall(video: call.isVideo) }
            done(fulfil)
            engine.run((effects ?? []) + (fulfil && audioLive ? [.audioLive(call)] : []))
        }
    }

    /// The user declined a ringing call or hung up an answered one on the system call screen
    /// (also End & Accept, which ends the call in progress before answering a waiting one).
    func endAction(_ uuid: UUID, done: @escaping @Sendable (Bool) -> Void) {
        let effects = state.withLock { s -> [CallEffect] in
            guard let record = s.record(uuid) else { return [] }
            if record.isRinging {
                return finish(&s, record, .declined, reportToCallKit: false, status: Self.declineStatus(s, record))
            }
            return finish(&s, record, .localEnded, reportToCallKit: false)
        }
        done(true)
        run(effects)
    }

    /// What the caller hears when the user declines `record`: `busy` for a waiting call (the
    /// user is on another call), `rejected` otherwise.
    static func declineStatus(_ s: State, _ record: CallRecord) -> String {
        s.waiting?.uuid == record.uuid ? "busy" : "rejected"
    }

    func setMuted(_ uuid: UUID, _ muted: Bool) -> Bool {
        let call = state.withLock { s -> IncomingCall? in
            guard var record = s.record(uuid) else { return nil }
            record.muted = muted
            s.update(record)
            return record.call
        }
        guard let call else { return false }
        onMain { engine in engine.state.withLock { $0.mediaSession }?.setMuted(muted, for: call) }
        return true
    }

    /// The user put an answered call on hold or took it off (CallKit's Hold button, Hold &
    /// Accept of a waiting call, Swap): the delegate hears of it. Fails for a call that is not
    /// answered.
    func setHeld(_ uuid: UUID, _ onHold: Bool) -> Bool {
        let effects = state.withLock { s -> [CallEffect]? in
            guard var record = s.record(uuid), record.phase == .active else { return nil }
            guard record.onHold != onHold else { return [] }
            record.onHold = onHold
            s.update(record)
            return [.holdChanged(record.call, onHold)]
        }
        guard let effects else { return false }
        logger.log(.info, "Call \(uuid) \(onHold ? "put on hold" : "taken off hold") through CallKit.")
        run(effects)
        return true
    }

    /// CallKit activated the audio session (configured when the call was answered): the app's
    /// media may start now, for the answered call that is not on hold.
    func audioActivated() {
        let call = state.withLock { s -> IncomingCall? in
            s.audioActive = true
            return s.foreground?.call
        }
        guard let call else { return }
        onMain { engine in engine.state.withLock { $0.mediaSession }?.audioSessionDidActivate(for: call) }
    }

    func audioDeactivated() {
        state.withLock { $0.audioActive = false }
        onMain { engine in engine.state.withLock { $0.mediaSession }?.audioSessionDidDeactivate() }
    }

    /// CallKit dropped every call.
    func providerReset() {
        let effects = state.withLock { s -> [CallEffect] in
            s.audioActive = false
            return s.records.flatMap { finish(&s, $0, .failed, reportToCallKit: false) }
        }
        run(effects)
    }

    // MARK: The app's calls

    /// The app declined from its own UI: ends the ringing call through CallKit and tells the
    /// service `rejected` (`busy` for a waiting call; `rejected` also for a call that does not
    /// ring here).
    func decline(sessionId: String, completion: (@Sendable (PNResult<Void>) -> Void)?) {
        let (effects, uuid) = state.withLock { s -> ([CallEffect], UUID?) in
            guard let record = s.record(session: sessionId), record.isRinging else { return ([], nil) }
            let effects = finish(
                &s, record, .declined, reportToCallKit: false, status: Self.declineStatus(s, record), statusCompletion: completion)
            return (effects, record.uuid)
        }
        guard let uuid else {
            sendStatus("rejected", sessionId: sessionId, completion: completion)
            return
        }
        if callKitUsable {
            let callKit = ports.callKit
            let clock = self.clock
            callKit.requestEndCall(uuid) { accepted in
                if !accepted { callKit.reportCallEnded(uuid, at: clock.now(), reason: .declinedElsewhere) }
            }
        } else {
            ports.callKit.removeFallbackNotification(uuid)
        }
        run(effects)
    }

    /// The app ended a call in its own UI, or its calls SDK saw the call end. A hang-up on this
    /// device (`.localEnded`) of a call CallKit shows is a `CXEndCallAction` requested through
    /// the call controller (rule 12), so CallKit records it as ended here; its end action then
    /// finishes the call as `.localEnded`. Other endings are reported to CallKit.
    func reportCallEnded(sessionId: String, reason: CallEndReason) {
        if reason == .localEnded, callKitUsable,
            let uuid = state.withLock({ s -> UUID? in
                guard let record = s.record(session: sessionId), !record.isRinging else { return nil }
                return record.uuid
            })
        {
            ports.callKit.requestEndCall(uuid) { [weak self] accepted in
                // CallKit no longer knows the call: end it here all the same.
                if !accepted { self?.finishEnded(sessionId: sessionId, reason: reason) }
            }
            return
        }
        finishEnded(sessionId: sessionId, reason: reason)
    }

    private func finishEnded(sessionId: String, reason: CallEndReason) {
        let effects = state.withLock { s -> [CallEffect] in
            s.outgoing.remove(sessionId)
            guard let record = s.record(session: sessionId) else { return [] }
            let status = record.isRinging && reason == .declined ? Self.declineStatus(s, record) : nil
            return finish(&s, record, reason, reportToCallKit: true, status: status)
        }
        run(effects)
    }

    /// The app placed a call: an incoming call rings as a call waiting beside it (CallKit, which
    /// does not know the app's call, shows Accept and Decline) until it ends.
    func reportOutgoingCallStarted(sessionId: String) {
        state.withLock { _ = $0.outgoing.insert(sessionId) }
    }
}
