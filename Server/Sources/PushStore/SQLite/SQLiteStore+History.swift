#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

// A user's pushes and an app's recent activity (issue 31 part 3).
extension SQLiteStore {
    public func userPushes(
        appId: String, uid: String, before: (createdAt: Date, id: String)?, limit: Int
    ) throws -> [(requestId: String, entry: PushJobLogEntry)] {
        let cursor = before ?? (.distantFuture, "")
        return try withConnection { connection in
            try connection.query(
                """
                SELECT id, uid, token, platform, kind, state, attempts, last_error, created_at, finished_at, rule,
                    interruption_level, level_reason, request_id
                FROM push_jobs INDEXED BY push_jobs_user
                WHERE app_id = ?1 AND uid = ?2 AND created_at <= ?3 AND (created_at < ?3 OR id < ?4)
                ORDER BY created_at DESC, id DESC LIMIT ?5
                """,
                [.text(appId), .text(uid), .date(cursor.createdAt), .text(cursor.id), .int(Int64(max(0, limit)))]
            ) { row in
                (
                    row.text(13),
                    PushJobLogEntry(
                        id: row.text(0), uid: row.text(1), token: row.text(2),
                        platform: TokenPlatform(rawValue: row.text(3)) ?? .apnsDevice, kind: PushKind(rawValue: row.text(4)) ?? .chat,
                        state: row.text(5), attempts: Int(row.int(6)), lastError: row.optionalText(7), createdAt: row.date(8),
                        finishedAt: row.optionalText(9).map { _ in row.date(9) }, rule: row.optionalText(10),
                        interruptionLevel: row.optionalText(11), levelReason: row.optionalText(12))
                )
            }
        }
    }

    public func pushEvents(appId: String, pushIds: [String]) throws -> [PushEvent] {
        guard !pushIds.isEmpty else { return [] }
        return try withConnection { connection in
            var events: [PushEvent] = []
            // One lookup of the primary key's prefix (app, push) per push.
            for pushId in Set(pushIds) {
                events += try connection.query(
                    "SELECT request_id, step, at, detail FROM push_events WHERE app_id = ? AND push_id = ? ORDER BY at, step",
                    [.text(appId), .text(pushId)]
                ) { row in
                    PushEvent(
                        appId: appId, pushId: pushId, requestId: row.text(0), step: row.text(1), at: row.date(2),
                        detail: row.optionalText(3))
                }
            }
            return events
        }
    }

    public func pushActivity(appId: String, since: Date) throws -> [PushActivityMinute] {
        try withConnection { connection in
            try connection.query(
                """
                SELECT created_at / 60000, COUNT(*), SUM(state = 'delivered'), SUM(state = 'failed'), SUM(state = 'expired'),
                    SUM(state = 'skipped')
                FROM push_jobs INDEXED BY push_jobs_created WHERE created_at >= ? AND app_id = ?
                GROUP BY created_at / 60000 ORDER BY 1
                """,
                [.date(since), .text(appId)]
            ) { row in
                PushActivityMinute(
                    minute: Date(timeIntervalSince1970: Double(row.int(0)) * 60), accepted: Int(row.int(1)),
                    delivered: Int(row.int(2)), failed: Int(row.int(3)), expired: Int(row.int(4)), skipped: Int(row.int(5)))
            }
        }
    }
}
