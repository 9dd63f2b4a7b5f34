#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

// The webhook outbox and the calls (as `SQLiteStore+Webhooks.swift` on SQLite).
extension PostgresStore {
    public func claimWebhookJobs(limit: Int, lease: TimeInterval, now: Date, perApp: Int, busy: [String: Int]) throws -> [WebhookJob] {
        guard limit > 0 else { return [] }
        let full = WebhookClaimShares.full(perApp: perApp, busy: busy)
        let exclusion =
            full.isEmpty ? "" : " AND app_id NOT IN (" + full.indices.map { "$\($0 + 3)" }.joined(separator: ", ") + ")"
        let jobs = try withConnection { connection in
            try connection.transaction {
                // The rows read stay locked (SKIP LOCKED for other instances) until the lease
                // below is written: two instances never lease one job.
                let candidates = try connection.query(
                    """
                    SELECT id, app_id FROM webhook_jobs
                    WHERE ((state = 'pending' AND not_before <= $1) OR (state = 'leased' AND lease_until <= $1))\(exclusion)
                    ORDER BY not_before, created_at LIMIT $2 FOR UPDATE SKIP LOCKED
                    """,
                    [.date(now), .limit(WebhookClaimShares.candidates(limit: limit))] + full.map { .text($0) }
                ).map { (id: $0.text(0), appId: $0.text(1)) }
                let ids = WebhookClaimShares.pick(candidates, limit: limit, perApp: perApp, busy: busy)
                guard !ids.isEmpty else { return [WebhookJob]() }
                return try connection.query(
                    "UPDATE webhook_jobs SET state = 'leased', lease_until = $1, lease_owner = $2, attempts = attempts + 1 WHERE id IN ("
                        + ids.indices.map { "$\($0 + 3)" }.joined(separator: ", ")
                        + ") RETURNING id, app_id, event, body, attempts, not_before, created_at",
                    [.date(now.addingTimeInterval(lease)), .text(leaseOwner)] + ids.map { .text($0) }
                ).map {
                    WebhookJob(
                        id: $0.text(0), appId: $0.text(1), event: $0.text(2), body: $0.blob(3), attempts: Int($0.int(4)),
                        notBefore: $0.date(5), createdAt: $0.date(6))
                }
            }
        }
        return jobs.sorted { ($0.notBefore, $0.createdAt) < ($1.notBefore, $1.createdAt) }
    }

    public func finishWebhookJob(id: String, retryAt: Date?, error: String?) throws {
        try withConnection {
            if let retryAt {
                try $0.query(
                    "UPDATE webhook_jobs SET state = 'pending', lease_until = NULL, not_before = $1, last_error = $2 WHERE id = $3",
                    [.date(retryAt), .text(error), .text(id)])
            } else {
                try $0.query(
                    "UPDATE webhook_jobs SET state = 'delivered', lease_until = NULL, finished_at = $1, last_error = NULL WHERE id = $2",
                    [.date(Date()), .text(id)])
            }
        }
    }

    public func pendingWebhookJobCount() throws -> Int {
        try withConnection {
            try $0.query("SELECT COUNT(*) FROM webhook_jobs WHERE state <> 'delivered'").first { Int($0.int(0)) } ?? 0
        }
    }

    // MARK: Calls

    public func recordCall(_ call: CallRecord) throws {
        try withConnection { try Self.insert(call, into: $0) }
    }

    /// Writes (or replaces, keeping who answered) a call's record.
    static func insert(_ call: CallRecord, into connection: PGConnection) throws {
        try connection.query(
            """
            INSERT INTO calls (app_id, session_id, caller_uid, details, created_at, recipients, answered)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (app_id, session_id) DO UPDATE SET caller_uid = excluded.caller_uid, details = excluded.details,
                recipients = excluded.recipients
            """,
            [
                .text(call.appId), .text(call.sessionId), .text(call.callerUid), .bytea(call.details), .date(call.createdAt),
                .text(CallRecord.encode(uids: call.recipients)), .text(CallRecord.encode(uids: [])),
            ])
    }

    public func call(appId: String, sessionId: String) throws -> CallRecord? {
        try withConnection { try Self.call(appId: appId, sessionId: sessionId, on: $0) }
    }

    static func call(appId: String, sessionId: String, on connection: PGConnection) throws -> CallRecord? {
        try connection.query(
            "SELECT app_id, session_id, caller_uid, details, created_at, recipients FROM calls WHERE app_id = $1 AND session_id = $2",
            [.text(appId), .text(sessionId)]
        ).first {
            CallRecord(
                appId: $0.text(0), sessionId: $0.text(1), callerUid: $0.text(2), details: $0.blob(3), createdAt: $0.date(4),
                recipients: CallRecord.decode(uids: $0.optionalText(5)))
        }
    }

    public func recordCallAnswer(appId: String, sessionId: String, uid: String) throws -> CallAnswer {
        let framed = "\n" + uid + "\n"
        return try withConnection { connection in
            try connection.transaction {
                // One statement decides (the row lock orders two answers at once): only a
                // recipient's first answer changes the row.
                let changed = try connection.query(
                    """
                    UPDATE calls SET answered = COALESCE(answered, chr(10)) || $3
                    WHERE app_id = $1 AND session_id = $2 AND strpos(recipients, $4) > 0
                        AND strpos(COALESCE(answered, chr(10)), $4) = 0
                    """, [.text(appId), .text(sessionId), .text(uid + "\n"), .text(framed)]
                ).affected
                let record = try Self.call(appId: appId, sessionId: sessionId, on: connection)
                guard let record, record.recipients.contains(uid) else { return .notRecipient }
                return changed > 0 ? .first(record) : .repeated
            }
        }
    }
}
