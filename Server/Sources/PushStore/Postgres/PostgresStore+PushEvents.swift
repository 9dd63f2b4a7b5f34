#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension PostgresStore {
    public func pushJobEntry(appId: String, pushId: String) throws -> (requestId: String, entry: PushJobLogEntry)? {
        try withConnection { connection in
            try connection.query(
                """
                SELECT id, uid, token, platform, kind, state, attempts, last_error, created_at, finished_at, request_id
                FROM push_job_rows WHERE id = $1 AND app_id = $2
                """,
                [.text(pushId), .text(appId)]
            ).first { row in
                (
                    row.text(10),
                    PushJobLogEntry(
                        id: row.text(0), uid: row.text(1), token: row.text(2),
                        platform: TokenPlatform(rawValue: row.text(3)) ?? .apnsDevice, kind: PushKind(rawValue: row.text(4)) ?? .chat,
                        state: row.text(5), attempts: Int(row.int(6)), lastError: row.optionalText(7), createdAt: row.date(8),
                        finishedAt: row.optionalDate(9))
                )
            }
        }
    }

    public func recordPushEvent(_ event: PushEvent) throws -> (stored: PushEvent, added: Bool) {
        try withConnection { connection in
            // One statement: the new row, or (on a repeat) the stored one.
            try connection.query(
                """
                WITH added AS (
                    INSERT INTO push_events (app_id, push_id, request_id, step, at, detail) VALUES ($1, $2, $3, $4, $5, $6)
                    ON CONFLICT (app_id, push_id, step) DO NOTHING RETURNING at, detail)
                SELECT at, detail, TRUE FROM added
                UNION ALL
                SELECT at, detail, FALSE FROM push_events WHERE app_id = $1 AND push_id = $2 AND step = $4
                LIMIT 1
                """,
                [
                    .text(event.appId), .text(event.pushId), .text(event.requestId), .text(event.step), .date(event.at),
                    .text(event.detail),
                ]
            ).first { row in
                var stored = event
                stored.at = row.date(0)
                stored.detail = row.optionalText(1)
                return (stored, row.bool(2))
            } ?? (event, false)
        }
    }

    public func pushEvents(appId: String, requestId: String) throws -> [PushEvent] {
        try withConnection { connection in
            try connection.query(
                "SELECT push_id, step, at, detail FROM push_events WHERE app_id = $1 AND request_id = $2 ORDER BY at, push_id, step",
                [.text(appId), .text(requestId)]
            ).map { row in
                PushEvent(
                    appId: appId, pushId: row.text(0), requestId: requestId, step: row.text(1), at: row.date(2),
                    detail: row.optionalText(3))
            }
        }
    }
}
