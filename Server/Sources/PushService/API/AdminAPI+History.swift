#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore
import ServerSupport

/// "What happened to Alice's push?" (issue 31 part 3): a user's recent pushes, each with the
/// trace of its device, and an app's pushes per minute, for the dashboard's charts.
extension AdminAPI {
    /// The most pushes a page lists.
    static let maxPushesPage = 100
    /// The longest window of ``pushActivityJSON(appId:minutes:)``: a day.
    static let maxActivityMinutes = 1_440

    var historyRoutes: [Route] {
        [
            Route("GET", "users/:uid/pushes", .adminApp) { call in
                let user = try existingUser(call)
                let limit = try Self.integer(call.request.query["limit"], field: "limit", in: 1...Self.maxPushesPage) ?? 20
                let before = try call.request.query["before"].map(Self.pushCursor)
                return try userPushesJSON(appId: call.appId, uid: user.uid, before: before, limit: limit)
            },
            Route("GET", "notifications/push/v1/stats", .adminApp) { call in
                let minutes =
                    try Self.integer(call.request.query["minutes"], field: "minutes", in: 1...Self.maxActivityMinutes) ?? 60
                return try pushActivityJSON(appId: call.appId, minutes: minutes)
            },
        ]
    }

    /// An optional integer query parameter within `range`; anything else is a 400 naming it.
    static func integer(_ text: String?, field: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest(
                "The \(field) parameter must be an integer from \(range.lowerBound) to \(range.upperBound).", field: field,
                problem: "not an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    /// A page cursor this route gave: `<milliseconds>.<push id>`.
    static func pushCursor(_ text: String) throws -> (createdAt: Date, id: String) {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].utf8.count <= 15, let milliseconds = Int64(parts[0]), milliseconds >= 0,
            (1...128).contains(parts[1].utf8.count), parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else {
            throw APIError.badRequest(
                "The before parameter must be a cursor this route gave (its next).", field: "before", problem: "not a cursor")
        }
        return (Date(timeIntervalSince1970: Double(milliseconds) / 1000), String(parts[1]))
    }

    /// `{uid, pushes: [{requestId, pushId, kind, state, createdAt, rule, device}], next}`: newest
    /// first; `device` is the push's trace as `GET …/send/{requestId}/trace` shows it (a skipped
    /// push's steps end at `preferences`, with its rule); `next` is the `before` of the next
    /// page, null on the last.
    func userPushesJSON(appId: String, uid: String, before: (createdAt: Date, id: String)?, limit: Int) throws -> [String: Any] {
        // One more than the page: whether there is a next page.
        var found = try service.store.userPushes(appId: appId, uid: uid, before: before, limit: limit + 1)
        let more = found.count > limit
        if more { found.removeLast() }
        let events = Dictionary(grouping: try service.store.pushEvents(appId: appId, pushIds: found.map(\.entry.id)), by: \.pushId)
        let pushes: [[String: Any]] = found.map { requestId, entry in
            var device = PushTrace.device(entry, events: events[entry.id] ?? [])
            if entry.state == "skipped" {
                device["steps"] = (device["steps"] as? [[String: Any]] ?? []).filter { $0["step"] as? String != "sent" }
                device["stoppedAt"] = ["step": "preferences", "reason": entry.rule ?? "skipped"]
            }
            return [
                "requestId": requestId, "pushId": entry.id, "kind": entry.kind.rawValue, "state": entry.state,
                "createdAt": PushTrace.milliseconds(entry.createdAt), "rule": entry.rule ?? JSONNull(), "device": device,
            ]
        }
        let next: Any =
            more ? found.last.map { "\(PushTrace.milliseconds($0.entry.createdAt)).\($0.entry.id)" as Any } ?? JSONNull() : JSONNull()
        return ["uid": uid, "pushes": pushes, "next": next]
    }

    /// `{since, minutes: [{at, accepted, delivered, failed, expired, skipped, inFlight}], totals}`:
    /// the app's pushes of the last `minutes` minutes, per minute (every minute of the window,
    /// zeros included, oldest first; `at` in milliseconds), by what became of them so far.
    func pushActivityJSON(appId: String, minutes: Int) throws -> [String: Any] {
        let now = service.now
        let firstMinute = (Int64(now.timeIntervalSince1970) / 60) - Int64(minutes - 1)
        let since = Date(timeIntervalSince1970: Double(firstMinute * 60))
        let found = Dictionary(
            try service.store.pushActivity(appId: appId, since: since).map { (Int64($0.minute.timeIntervalSince1970) / 60, $0) },
            uniquingKeysWith: { first, _ in first })
        var totals = PushActivityMinute(minute: since, accepted: 0, delivered: 0, failed: 0, expired: 0, skipped: 0)
        var rows: [[String: Any]] = []
        for minute in firstMinute..<(firstMinute + Int64(minutes)) {
            let counts =
                found[minute]
                ?? PushActivityMinute(
                    minute: Date(timeIntervalSince1970: Double(minute * 60)), accepted: 0, delivered: 0, failed: 0, expired: 0, skipped: 0)
            totals.accepted += counts.accepted
            totals.delivered += counts.delivered
            totals.failed += counts.failed
            totals.expired += counts.expired
            totals.skipped += counts.skipped
            var row = Self.activityJSON(counts)
            row["at"] = minute * 60_000
            rows.append(row)
        }
        return ["since": PushTrace.milliseconds(since), "minutes": rows, "totals": Self.activityJSON(totals)]
    }

    static func activityJSON(_ counts: PushActivityMinute) -> [String: Any] {
        [
            "accepted": counts.accepted, "delivered": counts.delivered, "failed": counts.failed, "expired": counts.expired,
            "skipped": counts.skipped, "inFlight": counts.inFlight,
        ]
    }
}
