import Delivery
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// The trace of a push, from the send request to the user's reply: what the store knows
/// about each job (accepted, preferences, sent) and what the SDK reported (delivered,
/// opened, replied).
struct PushTrace {
    let service: ServiceContext

    /// The steps the SDK reports.
    enum ReportedStep: String {
        case delivered, opened, replied
    }

    /// Records a step the SDK reported for a push of the session's user. Nil when the app has
    /// no such push for this user. The first report of a step counts in the `/metrics` funnel.
    @discardableResult
    func record(_ step: ReportedStep, pushId: String, session: Session, detail: String?) throws -> PushEvent? {
        guard let (requestId, entry) = try service.store.pushJobEntry(appId: session.appId, pushId: pushId),
            entry.uid == session.uid
        else { return nil }
        let now = service.now
        let (stored, added) = try service.store.recordPushEvent(
            PushEvent(appId: session.appId, pushId: pushId, requestId: requestId, step: step.rawValue, at: now, detail: detail))
        if added, step != .replied, let metrics = service.delivery.withLock({ $0 })?.engine.metrics {
            let delay = step == .delivered && entry.state == "delivered" ? entry.finishedAt.map { max(0, now.timeIntervalSince($0)) } : nil
            metrics.recordFunnel(app: session.appId, stage: step.rawValue, delay: delay)
        }
        return stored
    }

    /// The rule of the preferences that changed or skipped the job (`push_jobs.rule`); nil
    /// (shown as `none`) when no rule applied.
    static func rule(of entry: PushJobLogEntry) -> String? {
        entry.rule
    }

    /// `GET /notifications/push/v1/send/{requestId}/trace`.
    func trace(appId: String, requestId: String) throws -> Any {
        let entries = try service.store.pushJobLog(appId: appId, requestId: requestId)
        // A send to a large group (issue 31): its expansion's progress, before any job exists too.
        let expansion = try service.store.groupSend(appId: appId, id: requestId)
        guard let acceptedAt = expansion?.createdAt ?? entries.first?.createdAt else {
            throw APIError.sendRequestNotFound(requestId)
        }
        let events = Dictionary(grouping: try service.store.pushEvents(appId: appId, requestId: requestId), by: \.pushId)
        var order: [String] = []
        var devices: [String: [[String: Any]]] = [:]
        var skipped: [String: [[String: Any]]] = [:]
        for entry in entries {
            if devices[entry.uid] == nil && skipped[entry.uid] == nil { order.append(entry.uid) }
            if entry.state == "skipped" {
                // Preferences kept the push from this device (wip/prefs records these).
                skipped[entry.uid, default: []].append(["reason": Self.rule(of: entry) ?? "skipped"])
                continue
            }
            devices[entry.uid, default: []].append(Self.device(entry, events: events[entry.id] ?? []))
        }
        let recipients: [[String: Any]] = order.map { uid in
            var recipient: [String: Any] = ["uid": uid, "devices": devices[uid] ?? []]
            if let skipped = skipped[uid] { recipient["skipped"] = skipped }
            return recipient
        }
        var trace: [String: Any] = ["requestId": requestId, "acceptedAt": Self.milliseconds(acceptedAt), "recipients": recipients]
        if let expansion { trace["expansion"] = Self.expansion(expansion) }
        return trace
    }

    /// `{guid, members, done, jobs, state, finishedAt?, error?}`: how far a group send's
    /// background expansion got (members expanded, jobs made; `state` expanding, done or failed).
    static func expansion(_ send: GroupSend) -> [String: Any] {
        var value: [String: Any] = [
            "guid": send.guid, "members": send.members, "done": send.done, "jobs": send.jobs, "state": send.state.rawValue,
        ]
        if let finishedAt = send.finishedAt { value["finishedAt"] = milliseconds(finishedAt) }
        if let error = send.lastError { value["error"] = error }
        return value
    }

    static func device(_ entry: PushJobLogEntry, events: [PushEvent]) -> [String: Any] {
        var steps: [[String: Any]] = [
            ["step": "accepted", "at": milliseconds(entry.createdAt)],
            ["step": "preferences", "at": milliseconds(entry.createdAt), "detail": rule(of: entry) ?? "none"],
        ]
        var stopped: [String: Any]?
        var sent: [String: Any] = [:]
        if entry.platform.isAPNs { sent["apns-id"] = DeliverySender.apnsId(forJob: entry.id) }
        switch entry.state {
        case "delivered":
            sent["status"] = 200
            steps.append(["step": "sent", "at": milliseconds(entry.finishedAt ?? entry.createdAt), "detail": sent])
        case "failed":
            // The provider refused it, or it could not be sent (provider missing, payload too large).
            sent["reason"] = entry.lastError ?? "failed"
            steps.append(["step": "sent", "at": milliseconds(entry.finishedAt ?? entry.createdAt), "detail": sent])
            stopped = ["step": "sent", "reason": entry.lastError ?? "failed"]
        case "expired":
            stopped = ["step": "sent", "reason": "expired: " + (entry.lastError ?? "its moment passed before it could be sent")]
        default:
            // Pending or being sent; a retry says why.
            if let error = entry.lastError { stopped = ["step": "sent", "reason": "retrying: " + error] }
        }
        for step in ["delivered", "opened", "replied"] {
            guard let event = events.first(where: { $0.step == step }) else { continue }
            var value: [String: Any] = ["step": step, "at": milliseconds(event.at)]
            if let detail = event.detail { value["detail"] = detail }
            steps.append(value)
        }
        var device: [String: Any] = [
            "pushId": entry.id, "token": String(entry.token.prefix(8)) + "…", "platform": entry.platform.rawValue, "steps": steps,
        ]
        if let stopped { device["stoppedAt"] = stopped }
        // The interruption level the push carries and why (issue 30; none for VoIP pushes).
        if let level = entry.interruptionLevel {
            device["interruptionLevel"] = level
            device["levelReason"] = entry.levelReason ?? "none"
        }
        return device
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
