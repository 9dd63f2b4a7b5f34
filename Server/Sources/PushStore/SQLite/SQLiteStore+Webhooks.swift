#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerSupport

extension SQLiteStore {
    public func claimWebhookJobs(limit: Int, lease: TimeInterval, now: Date, perApp: Int, busy: [String: Int]) throws -> [WebhookJob] {
        guard limit > 0 else { return [] }
        let full = WebhookClaimShares.full(perApp: perApp, busy: busy)
        let exclusion = full.isEmpty ? "" : " AND app_id NOT IN (" + Array(repeating: "?", count: full.count).joined(separator: ",") + ")"
        return try withConnection { connection in
            try connection.transaction {
                let candidates = try connection.query(
                    "SELECT id, app_id FROM webhook_jobs WHERE ((state = ? AND not_before <= ?) OR (state = ? AND lease_until <= ?))"
                        + exclusion + " ORDER BY not_before, created_at LIMIT ?",
                    [.text(JobState.pending), .date(now), .text(JobState.leased), .date(now)] + full.map { .text($0) }
                        + [.int(Int64(WebhookClaimShares.candidates(limit: limit)))]
                ) { (id: $0.text(0), appId: $0.text(1)) }
                let ids = WebhookClaimShares.pick(candidates, limit: limit, perApp: perApp, busy: busy)
                guard !ids.isEmpty else { return [] }
                let jobs = try connection.query(
                    "UPDATE webhook_jobs SET state = ?, lease_until = ?, lease_owner = ?, attempts = attempts + 1 WHERE id IN ("
                        + Array(repeating: "?", count: ids.count).joined(separator: ",")
                        + ") RETURNING id, app_id, event, body, attempts, not_before, created_at",
                    [.text(JobState.leased), .date(now.addingTimeInterval(lease)), .text(ProcessIdentity.current)] + ids.map { .text($0) }
                ) {
                    WebhookJob(
                        id: $0.text(0), appId: $0.text(1), event: $0.text(2), body: $0.blob(3), attempts: Int($0.int(4)),
                        notBefore: $0.date(5), createdAt: $0.date(6))
                }
                return jobs.sorted { ($0.notBefore, $0.createdAt) < ($1.notBefore, $1.createdAt) }
            }
        }
    }

    public func finishWebhookJob(id: String, retryAt: Date?, error: String?) throws {
        try withConnection {
            if let retryAt {
                try $0.run(
                    "UPDATE webhook_jobs SET state = ?, lease_until = NULL, not_before = ?, last_error = ? WHERE id = ?",
                    [.text(JobState.pending), .date(retryAt), .optionalText(error), .text(id)])
            } else {
                try $0.run(
                    "UPDATE webhook_jobs SET state = ?, lease_until = NULL, finished_at = ?, last_error = NULL WHERE id = ?",
                    [.text(JobState.delivered), .date(Date()), .text(id)])
            }
        }
    }

    public func pendingWebhookJobCount() throws -> Int {
        try withConnection {
            try $0.query("SELECT COUNT(*) FROM webhook_jobs WHERE state != ?", [.text(JobState.delivered)]) { Int($0.int(0)) }.first ?? 0
        }
    }

    public func recordCall(_ call: CallRecord) throws {
        try withConnection { try Self.insert(call, into: $0) }
    }

    /// Writes (or replaces, keeping who answered) a call's record.
    static func insert(_ call: CallRecord, into connection: SQLiteConnection) throws {
        try connection.run(
            """
            INSERT INTO calls (app_id, session_id, caller_uid, details, created_at, recipients, answered)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_id, session_id) DO UPDATE SET caller_uid = excluded.caller_uid, details = excluded.details,
                recipients = excluded.recipients
            """,
            [
                .text(call.appId), .text(call.sessionId), .text(call.callerUid), .blob(call.details), .date(call.createdAt),
                .text(CallRecord.encode(uids: call.recipients)), .text(CallRecord.encode(uids: [])),
            ])
    }

    public func call(appId: String, sessionId: String) throws -> CallRecord? {
        try withConnection { try Self.call(appId: appId, sessionId: sessionId, on: $0) }
    }

    static func call(appId: String, sessionId: String, on connection: SQLiteConnection) throws -> CallRecord? {
        try connection.query(
            "SELECT app_id, session_id, caller_uid, details, created_at, recipients FROM calls WHERE app_id = ? AND session_id = ?",
            [.text(appId), .text(sessionId)]
        ) {
            CallRecord(
                appId: $0.text(0), sessionId: $0.text(1), callerUid: $0.text(2), details: $0.blob(3), createdAt: $0.date(4),
                recipients: CallRecord.decode(uids: $0.optionalText(5)))
        }
        .first
    }

    public func recordCallAnswer(appId: String, sessionId: String, uid: String) throws -> CallAnswer {
        let framed = "\n" + uid + "\n"
        return try withConnection { connection in
            try connection.transaction {
                // One statement decides: only a recipient's first answer changes the row.
                let changed = try connection.run(
                    """
                    UPDATE calls SET answered = COALESCE(answered, char(10)) || ?3
                    WHERE app_id = ?1 AND session_id = ?2 AND instr(recipients, ?4) > 0
                        AND instr(COALESCE(answered, char(10)), ?4) = 0
                    """, [.text(appId), .text(sessionId), .text(uid + "\n"), .text(framed)])
                let record = try Self.call(appId: appId, sessionId: sessionId, on: connection)
                guard let record, record.recipients.contains(uid) else { return .notRecipient }
                return changed > 0 ? .first(record) : .repeated
            }
        }
    }
}
