#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension SQLiteStore {
    public func pushJobEntry(appId: String, pushId: String) throws -> (requestId: String, entry: PushJobLogEntry)? {
        try withConnection { connection in
            try connection.query(
                """
                SELECT id, uid, token, platform, kind, state, attempts, last_error, created_at, finished_at, request_id
                FROM push_jobs WHERE id = ? AND app_id = ?
                """,
                [.text(pushId), .text(appId)]
            ) { row in
                (
                    row.text(10),
                    PushJobLogEntry(
                        id: row.text(0), uid: row.text(1), token: row.text(2),
                        platform: TokenPlatform(rawValue: row.text(3)) ?? .apnsDevice, kind: PushKind(rawValue: row.text(4)) ?? .chat,
                        state: row.text(5), attempts: Int(row.int(6)), lastError: row.optionalText(7), createdAt: row.date(8),
                        finishedAt: row.optionalText(9).map { _ in row.date(9) })
                )
            }.first
        }
    }

    public func recordPushEvent(_ event: PushEvent) throws -> (stored: PushEvent, added: Bool) {
        try withConnection { connection in
            try connection.transaction {
                let added = try connection.run(
                    """
                    INSERT INTO push_events (app_id, push_id, request_id, step, at, detail) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app_id, push_id, step) DO NOTHING
                    """,
                    [
                        .text(event.appId), .text(event.pushId), .text(event.requestId), .text(event.step), .date(event.at),
                        .optionalText(event.detail),
                    ])
                let stored = try connection.query(
                    "SELECT at, detail FROM push_events WHERE app_id = ? AND push_id = ? AND step = ?",
                    [.text(event.appId), .text(event.pushId), .text(event.step)]
                ) { row in
                    var stored = event
                    stored.at = row.date(0)
                    stored.detail = row.optionalText(1)
                    return stored
                }.first
                return (stored ?? event, added > 0)
            }
        }
    }

    public func pushEvents(appId: String, requestId: String) throws -> [PushEvent] {
        try withConnection { connection in
            try connection.query(
                "SELECT push_id, step, at, detail FROM push_events WHERE app_id = ? AND request_id = ? ORDER BY at, push_id, step",
                [.text(appId), .text(requestId)]
            ) { row in
                PushEvent(
                    appId: appId, pushId: row.text(0), requestId: requestId, step: row.text(1), at: row.date(2),
                    detail: row.optionalText(3))
            }
        }
    }
}
