#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

// Holding pushes while the user reads the conversation elsewhere (issue 31): SQLiteStore's
// statements in PostgreSQL. A held job waits in the queue (`push_queue`, due when its hold
// ends); a cancel takes its queue row only if no sender leased it meanwhile.
extension PostgresStore {
    public func setActivity(appId: String, uid: String, source: String, conversationId: String?, expiresAt: Date, now: Date) throws {
        try withConnection { connection in
            try connection.transaction {
                try connection.query(
                    "DELETE FROM user_activity WHERE app_id = $1 AND uid = $2 AND (source = $3 OR expires_at <= $4)",
                    [.text(appId), .text(uid), .text(source), .date(now)])
                guard let conversationId else { return }
                try connection.query(
                    """
                    INSERT INTO user_activity (app_id, uid, source, conversation_id, expires_at)
                    SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM users WHERE app_id = $1 AND uid = $2)
                    ON CONFLICT (app_id, uid, source) DO UPDATE SET conversation_id = excluded.conversation_id,
                        expires_at = excluded.expires_at
                    """,
                    [.text(appId), .text(uid), .text(source), .text(conversationId), .date(expiresAt)])
            }
        }
    }

    public func activities(appId: String, uids: [String], now: Date) throws -> [String: [UserActivity]] {
        guard !uids.isEmpty else { return [:] }
        return try withConnection { connection in
            let rows = try connection.query(
                """
                SELECT uid, source, conversation_id, expires_at FROM user_activity
                WHERE app_id = $1 AND uid = ANY($2::text[]) AND expires_at > $3
                """,
                [.text(appId), .textArray(Array(Set(uids))), .date(now)]
            ).map { ($0.text(0), UserActivity(source: $0.text(1), conversationId: $0.text(2), expiresAt: $0.date(3))) }
            return Dictionary(grouping: rows, by: \.0).mapValues { $0.map(\.1) }
        }
    }

    public func recordHeldPushes(appId: String, uid: String, conversationId: String, jobIds: [String], until: Date, now: Date) throws {
        try withConnection { connection in
            try connection.transaction {
                try connection.query(
                    "DELETE FROM held_pushes WHERE app_id = $1 AND uid = $2 AND until <= $3", [.text(appId), .text(uid), .date(now)])
                guard !jobIds.isEmpty else { return }
                try connection.query(
                    """
                    INSERT INTO held_pushes (app_id, uid, conversation_id, job_id, until)
                    SELECT $1, $2, $3, id, $5 FROM unnest($4::text[]) AS u(id)
                    ON CONFLICT (app_id, uid, conversation_id, job_id) DO NOTHING
                    """,
                    [.text(appId), .text(uid), .text(conversationId), .textArray(jobIds), .date(until)])
            }
        }
    }

    public func cancelHeldPushes(appId: String, uid: String, conversationId: String, rule: String, now: Date) throws -> [String] {
        try withConnection { connection in
            try connection.transaction {
                let held = try connection.query(
                    "SELECT job_id FROM held_pushes WHERE app_id = $1 AND uid = $2 AND conversation_id = $3 AND until > $4",
                    [.text(appId), .text(uid), .text(conversationId), .date(now)]
                ).map { $0.text(0) }
                var cancelled: [String] = []
                if !held.isEmpty {
                    // The queue rows still waiting (a leased one is being sent: left alone).
                    cancelled = try connection.query(
                        """
                        WITH gone AS (
                            DELETE FROM push_queue WHERE id = ANY($1::text[]) AND lane <> \(PostgresMigrations.leasedLane)
                            RETURNING id, attempts)
                        UPDATE push_jobs j SET state = 'skipped', rule = $2, finished_at = $3, lease_until = NULL, attempts = g.attempts
                        FROM gone g WHERE j.id = g.id
                        RETURNING j.id
                        """,
                        [.textArray(held), .text(rule), .date(now)]
                    ).map { $0.text(0) }
                }
                try connection.query(
                    "DELETE FROM held_pushes WHERE app_id = $1 AND uid = $2 AND (conversation_id = $3 OR until <= $4)",
                    [.text(appId), .text(uid), .text(conversationId), .date(now)])
                return cancelled
            }
        }
    }
}
