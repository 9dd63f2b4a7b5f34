#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension SQLiteStore {
    /// The delivery log of one send request: every job with its state and last error.
    public func pushJobLog(appId: String, requestId: String) throws -> [PushJobLogEntry] {
        try withConnection { connection in
            try connection.query(
                """
                SELECT id, uid, token, platform, kind, state, attempts, last_error, created_at, finished_at, rule,
                    interruption_level, level_reason
                FROM push_jobs WHERE app_id = ? AND request_id = ? ORDER BY created_at, id
                """,
                [.text(appId), .text(requestId)]
            ) { row in
                PushJobLogEntry(
                    id: row.text(0), uid: row.text(1), token: row.text(2),
                    platform: TokenPlatform(rawValue: row.text(3)) ?? .apnsDevice, kind: PushKind(rawValue: row.text(4)) ?? .chat,
                    state: row.text(5), attempts: Int(row.int(6)), lastError: row.optionalText(7), createdAt: row.date(8),
                    finishedAt: row.optionalText(9).map { _ in row.date(9) }, rule: row.optionalText(10),
                    interruptionLevel: row.optionalText(11), levelReason: row.optionalText(12))
            }
        }
    }
}
