#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

// Holding pushes while the user reads the conversation elsewhere (issue 31).
extension SQLiteStore {
    public func setActivity(appId: String, uid: String, source: String, conversationId: String?, expiresAt: Date, now: Date) throws {
        try withConnection { connection in
            try connection.transaction {
                try connection.run(
                    "DELETE FROM user_activity WHERE app_id = ? AND uid = ? AND (source = ? OR expires_at <= ?)",
                    [.text(appId), .text(uid), .text(source), .date(now)])
                guard let conversationId else { return }
                // Only for a user of the app.
                try connection.run(
                    """
                    INSERT INTO user_activity (app_id, uid, source, conversation_id, expires_at)
                    SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE app_id = ? AND uid = ?)
                    """,
                    [.text(appId), .text(uid), .text(source), .text(conversationId), .date(expiresAt), .text(appId), .text(uid)])
            }
        }
    }

    public func activities(appId: String, uids: [String], now: Date) throws -> [String: [UserActivity]] {
        guard !uids.isEmpty else { return [:] }
        return try withConnection { connection in
            var found: [String: [UserActivity]] = [:]
            for uid in Set(uids) {
                let rows = try connection.query(
                    "SELECT source, conversation_id, expires_at FROM user_activity WHERE app_id = ? AND uid = ? AND expires_at > ?",
                    [.text(appId), .text(uid), .date(now)]
                ) { UserActivity(source: $0.text(0), conversationId: $0.text(1), expiresAt: $0.date(2)) }
                if !rows.isEmpty { found[uid] = rows }
            }
            return found
        }
    }

    public func recordHeldPushes(appId: String, uid: String, conversationId: String, jobIds: [String], until: Date, now: Date) throws {
        try withConnection { connection in
            try connection.transaction {
                try connection.run(
                    "DELETE FROM held_pushes WHERE app_id = ? AND uid = ? AND until <= ?", [.text(appId), .text(uid), .date(now)])
                for id in jobIds {
                    try connection.run(
                        """
                        INSERT INTO held_pushes (app_id, uid, conversation_id, job_id, until) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (app_id, uid, conversation_id, job_id) DO NOTHING
                        """,
                        [.text(appId), .text(uid), .text(conversationId), .text(id), .date(until)])
                }
            }
        }
    }

    public func cancelHeldPushes(appId: String, uid: String, conversationId: String, rule: String, now: Date) throws -> [String] {
        try withConnection { connection in
            try connection.transaction {
                let held = try connection.query(
                    "SELECT job_id FROM held_pushes WHERE app_id = ? AND uid = ? AND conversation_id = ? AND until > ?",
                    [.text(appId), .text(uid), .text(conversationId), .date(now)]
                ) { $0.text(0) }
                var cancelled: [String] = []
                for id in held {
                    // Only a job still waiting: one being sent, or sent, is left alone.
                    let skipped = try connection.run(
                        "UPDATE push_jobs SET state = ?, rule = ?, finished_at = ? WHERE id = ? AND app_id = ? AND state = ?",
                        [.text(JobState.skipped), .text(rule), .date(now), .text(id), .text(appId), .text(JobState.pending)])
                    if skipped > 0 { cancelled.append(id) }
                }
                try connection.run(
                    "DELETE FROM held_pushes WHERE app_id = ? AND uid = ? AND (conversation_id = ? OR until <= ?)",
                    [.text(appId), .text(uid), .text(conversationId), .date(now)])
                return cancelled
            }
        }
    }
}
