import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension CallEngine {
    /// Handles one VoIP push. Reports it to CallKit before returning, whatever it holds, and
    /// calls `completion` only after CallKit answered that report. When iOS 26.4 says the push
    /// need not be reported (`mustReport` false: the app is in the foreground or already has a
    /// call), only a new call that rings is reported; a cancel, an end, an answer elsewhere, a
    /// duplicate or a push that cannot ring is handled without a report, so no call screen
    /// flashes.
    func handlePush(_ push: PNVoIPPush, completion: @escaping @Sendable () -> Void) {
        guard ports.ringsCalls else {
            logger.log(.warning, "A VoIP push arrived on a platform where calls do not ring; it was completed unreported.")
            completion()
            return
        }
        let sdk = self.sdk
        // A private push (issue 28) is opened here, inside the PushKit callback and before the
        // report, so CallKit shows the caller's name. One that cannot be opened is still reported
        // (rule 9), as the call placeholder, and ended as failed.
        var payload = push.payload
        var unopened: String?
        switch sdk?.openPrivatePushInApp(push.payload) {
        case .opened(let opened)?: payload = opened
        case .failed(let failure)?: unopened = failure.code
        case .standard?: break
        case nil: if push.payload["enc"] != nil { unopened = "noSDK" }
        }
        let parsed = CallPushParser.parse(payload)
        let uid = sdk?.currentUID
        let now = clock.now()
        let plan = state.withLock { s -> PushPlan in
            if let unopened {
                return self.turnedAway(parsed, .failed, "private and could not be opened (\(unopened)); reported as unknown and ended")
            }
            return self.plan(for: parsed, payload: payload, uid: uid, now: now, &s)
        }
        if !push.mustReport, plan.ringing == nil {
            logger.log(.info, "VoIP push: \(plan.note); iOS did not require a report (mustReport false), so none was made.")
            // Nothing was reported: the effects run without the report's end.
            run(plan.effects)
            completion()
            return
        }
        logger.log(plan.ringing == nil ? .info : .debug, "VoIP push: \(plan.note).")
        sdk?.beginWork()
        guard callKitUsable else {
            // Regions without CallKit: a notification stands in for the call screen.
            if plan.ringing != nil { ports.callKit.showFallbackNotification(plan.report) }
            reportAnswered(plan, error: nil)
            completion()
            sdk?.endWork()
            return
        }
        ports.callKit.reportNewIncomingCall(plan.report) { [self] error in
            reportAnswered(plan, error: error)
            completion()
            sdk?.endWork()
        }
    }

    /// Decides what a push means, under the lock. Every path returns a report.
    private func plan(
        for parsed: CallPush, payload: [AnyHashable: Any], uid: String?, now: Date, _ s: inout State
    ) -> PushPlan {
        let fresh = UUID()
        func turnedAway(_ reason: PNCallKitEndedReason, _ note: String, effects: [CallEffect] = []) -> PushPlan {
            self.turnedAway(parsed, reason, note, effects: effects, uuid: fresh)
        }
        if let problem = parsed.problem { return turnedAway(.failed, "malformed (\(problem)); reported and ended") }
        guard let sessionId = parsed.sessionId, let action = parsed.action else {
            return turnedAway(.failed, "malformed; reported and ended")
        }
        if uid != nil { s.loggedOut = false }
        guard s.configured else { return turnedAway(.failed, "before initialize(config:); reported and ended") }
        if s.loggedOut { return turnedAway(.failed, "after logout; reported and ended") }
        if let uid, !parsed.isGroup, let receiver = parsed.receiver, receiver != uid {
            return turnedAway(.failed, "for another user; reported and ended")
        }

        if let record = s.record(session: sessionId) {
            // About the call on screen: report its UUID again (CallKit answers that it exists,
            // and shows nothing new), then act on it.
            let report = PNIncomingCallReport(
                uuid: record.uuid, callerName: record.call.callerName, handle: parsed.handle, hasVideo: record.call.isVideo)
            guard let reason = Self.endReason(for: action, ringing: record.isRinging) else {
                return PushPlan(report: report, note: "\(action.rawValue) repeated for call \(sessionId); reported again")
            }
            let effects = finish(&s, record, reason, reportToCallKit: true)
            return PushPlan(report: report, effects: effects, note: "\(action.rawValue) for call \(sessionId)")
        }

        guard action == .initiated else {
            return turnedAway(.remoteEnded, "\(action.rawValue) for call \(sessionId), which is not ringing; reported and ended")
        }
        if s.endedSessions.contains(sessionId) {
            return turnedAway(.remoteEnded, "initiated for call \(sessionId), which already ended; reported and ended")
        }
        guard let call = parsed.incomingCall(payload: payload, uuid: fresh) else {
            return turnedAway(.failed, "malformed; reported and ended")
        }
        // Call waiting: a second call rings while the first is in progress (answered, or an
        // outgoing call of the app's); while the first still rings, or with a call already
        // waiting, it is turned away busy.
        if s.waiting != nil || s.current?.isRinging == true {
            s.endedSessions.append(sessionId)
            if s.endedSessions.count > Self.endedMemory { s.endedSessions.removeFirst() }
            let why = s.waiting != nil ? "a call is already waiting" : "another call is ringing"
            return turnedAway(
                .unanswered, "call \(sessionId) while \(why); reported, ended and answered busy",
                effects: [.sendStatus(sessionId: sessionId, status: "busy", completion: nil), .callDidEnd(call, .busy)])
        }
        let record = CallRecord(call: call, phase: .reporting, since: now)
        let note: String
        if s.current != nil {
            s.waiting = record
            note = "call \(sessionId) rings as a waiting call (another call is in progress)"
        } else {
            s.current = record
            note = s.outgoing.isEmpty ? "call \(sessionId) rings" : "call \(sessionId) rings while the app's outgoing call runs"
        }
        let report = PNIncomingCallReport(uuid: fresh, callerName: call.callerName, handle: parsed.handle, hasVideo: call.isVideo)
        return PushPlan(report: report, ringing: call, note: note)
    }

    /// A report for a push that does not ring: reported (rule 9), then ended with `reason`.
    func turnedAway(
        _ parsed: CallPush, _ reason: PNCallKitEndedReason, _ note: String, effects: [CallEffect] = [], uuid: UUID = UUID()
    ) -> PushPlan {
        let report = PNIncomingCallReport(
            uuid: uuid, callerName: parsed.displayName, handle: parsed.handle, hasVideo: parsed.callType == .video)
        return PushPlan(report: report, ringing: nil, endAtOnce: reason, effects: effects, note: note)
    }

    /// How a push about the current call ends it, or `nil` when it does not.
    static func endReason(for action: CallAction, ringing: Bool) -> CallEndReason? {
        switch action {
        case .initiated: return nil
        case .cancelled, .ended: return ringing ? .cancelled : .remoteEnded
        case .ongoing: return ringing ? .answeredElsewhere : nil
        case .rejected, .busy: return ringing ? .declinedElsewhere : nil
        case .unanswered: return ringing ? .timedOut : nil
        }
    }

    /// CallKit answered the report of `plan` (`error` when it refused the call).
    private func reportAnswered(_ plan: PushPlan, error: PNCallReportError?) {
        var effects = plan.effects
        if let call = plan.ringing {
            effects += state.withLock { s -> [CallEffect] in
                guard var record = s.record(call.callUUID) else { return [] }
                if let error {
                    logger.log(.warning, "CallKit refused call \(call.sessionId): \(error).")
                    return finish(&s, record, .failed, reportToCallKit: false)
                }
                if record.phase == .reporting {
                    record.phase = .ringing
                    s.update(record)
                }
                return [.startRingTimer(record.uuid), .prepareMedia(call)]
            }
        } else if error == nil, let reason = plan.endAtOnce {
            effects.insert(.reportEnded(plan.report.uuid, reason), at: 0)
        }
        run(effects)
    }
}
