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
            audioActivated: { [weak self] in self?.audioActivated() },
            audioDeactivated: { [weak self] in self?.audioDeactivated() },
            reset: { [weak self] in self?.providerReset() })
    }

    /// The user answered: `presentCall(_:)` on the main queue decides whether the call goes on.
    func answer(_ uuid: UUID, done: @escaping @Sendable (Bool) -> Void) {
        let (call, timer) = state.withLock { s -> (IncomingCall?, Task<Void, Never>?) in
            guard var record = s.current, record.uuid == uuid, record.phase == .ringing || record.phase == .reporting else {
                return (nil, nil)
            }
            record.phase = .answering
            s.current = record
            let timer = s.ringTask
            s.ringTask = nil
            return (record.call, timer)
        }
        timer?.cancel()
        guard let call else { return done(false) }
        onMain { engine in
            let delegate = engine.sdk?.delegate as? CometChatPushNotificationsCallsDelegate
            let presented = delegate?.pnPresentCall(call) ?? false
            if delegate == nil { engine.logger.log(.error, "A call was answered but no CometChatPushNotificationsCallsDelegate is set.") }
            let effects = engine.state.withLock { s -> [CallEffect]? in
                guard var record = s.current, record.uuid == uuid, record.phase == .answering else { return nil }
                if presented {
                    record.phase = .active
                    s.current = record
                    return []
                }
                return engine.finish(&s, record, .failed, reportToCallKit: true)
            }
            let fulfil = presented && effects?.isEmpty == true
            // Rule 12: category and mode before the answer is fulfilled; audio starts at activation.
            if fulfil { engine.ports.audioSession.configureForCall(video: call.isVideo) }
            done(fulfil)
            engine.run(effects ?? [])
        }
    }

    /// The user declined a ringing call or hung up an answered one on the system call screen.
    func endAction(_ uuid: UUID, done: @escaping @Sendable (Bool) -> Void) {
        let effects = state.withLock { s -> [CallEffect] in
            guard let record = s.current, record.uuid == uuid else { return [] }
            if record.isRinging { return finish(&s, record, .declined, reportToCallKit: false, status: "rejected") }
            return finish(&s, record, .localEnded, reportToCallKit: false)
        }
        done(true)
        run(effects)
    }

    func setMuted(_ uuid: UUID, _ muted: Bool) -> Bool {
        let call = state.withLock { s -> IncomingCall? in
            guard var record = s.current, record.uuid == uuid else { return nil }
            record.muted = muted
            s.current = record
            return record.call
        }
        guard let call else { return false }
        onMain { engine in engine.state.withLock { $0.mediaSession }?.setMuted(muted, for: call) }
        return true
    }

    /// CallKit activated the audio session (configured when the call was answered): the app's
    /// media may start now.
    func audioActivated() {
        let call = state.withLock { s -> IncomingCall? in
            s.audioActive = true
            return s.current?.call
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
            guard let record = s.current else { return [] }
            return finish(&s, record, .failed, reportToCallKit: false)
        }
        run(effects)
    }

    // MARK: The app's calls

    /// The app declined from its own UI: ends the ringing call through CallKit and tells the
    /// service `rejected` (also for a call that does not ring here).
    func decline(sessionId: String, completion: (@Sendable (PNResult<Void>) -> Void)?) {
        let (effects, uuid) = state.withLock { s -> ([CallEffect], UUID?) in
            guard let record = s.current, record.call.sessionId == sessionId, record.isRinging else { return ([], nil) }
            let effects = finish(&s, record, .declined, reportToCallKit: false, status: "rejected", statusCompletion: completion)
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
                guard let record = s.current, record.call.sessionId == sessionId, !record.isRinging else { return nil }
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
            guard let record = s.current, record.call.sessionId == sessionId else { return [] }
            let status = record.isRinging && reason == .declined ? "rejected" : nil
            return finish(&s, record, reason, reportToCallKit: true, status: status)
        }
        run(effects)
    }

    /// The app placed a call: incoming calls are turned away busy until it ends.
    func reportOutgoingCallStarted(sessionId: String) {
        state.withLock { _ = $0.outgoing.insert(sessionId) }
    }
}
