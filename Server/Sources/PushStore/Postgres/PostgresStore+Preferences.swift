#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Notification preferences: SQLiteStore's statements in PostgreSQL.
extension PostgresStore {
    public func preferences(appId: String, uid: String) throws -> PushPreferences {
        try withConnection { connection in
            let key: [PGValue] = [.text(appId), .text(uid)]
            let mutes = try connection.query(
                "SELECT receiver_type, receiver, until FROM push_mutes WHERE app_id = $1 AND uid = $2 ORDER BY receiver_type, receiver",
                key
            ).map { PushPreferences.Mute(receiverType: $0.text(0), receiver: $0.text(1), until: $0.optionalDate(2)) }
            let groups = try connection.query(
                "SELECT guid, level FROM push_group_levels WHERE app_id = $1 AND uid = $2 ORDER BY guid", key
            ).map { PushPreferences.GroupLevel(guid: $0.text(0), level: $0.text(1)) }
            let quiet = try connection.query(
                "SELECT quiet_start, quiet_end, quiet_include_calls, timezone FROM push_preferences "
                    + "WHERE app_id = $1 AND uid = $2 AND quiet_start IS NOT NULL",
                key
            ).first {
                PushPreferences.QuietHours(
                    start: Int($0.int(0)), end: Int($0.int(1)), includeCalls: $0.int(2) != 0, timezone: $0.optionalText(3))
            }
            return PushPreferences(mutes: mutes, groups: groups, quietHours: quiet)
        }
    }

    public func setMute(appId: String, uid: String, mute: PushPreferences.Mute, now: Date) throws {
        try withConnection {
            try $0.query(
                """
                INSERT INTO push_mutes (app_id, uid, receiver_type, receiver, until, created_at) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (app_id, uid, receiver_type, receiver) DO UPDATE SET until = excluded.until, created_at = excluded.created_at
                """,
                [
                    .text(appId), .text(uid), .text(mute.receiverType), .text(mute.receiver),
                    .int(mute.until.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }), .date(now),
                ])
        }
    }

    public func deleteMute(appId: String, uid: String, receiverType: String, receiver: String) throws -> Bool {
        try withConnection {
            try $0.query(
                "DELETE FROM push_mutes WHERE app_id = $1 AND uid = $2 AND receiver_type = $3 AND receiver = $4",
                [.text(appId), .text(uid), .text(receiverType), .text(receiver)]
            ).affected > 0
        }
    }

    public func setGroupLevel(appId: String, uid: String, guid: String, level: String, now: Date) throws {
        try withConnection {
            try $0.query(
                """
                INSERT INTO push_group_levels (app_id, uid, guid, level, updated_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (app_id, uid, guid) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at
                """,
                [.text(appId), .text(uid), .text(guid), .text(level), .date(now)])
        }
    }

    public func setQuietHours(appId: String, uid: String, quietHours: PushPreferences.QuietHours?, now: Date) throws {
        try withConnection {
            guard let quietHours else {
                try $0.query("DELETE FROM push_preferences WHERE app_id = $1 AND uid = $2", [.text(appId), .text(uid)])
                return
            }
            try $0.query(
                """
                INSERT INTO push_preferences (app_id, uid, quiet_start, quiet_end, quiet_include_calls, timezone, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (app_id, uid) DO UPDATE SET quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end,
                    quiet_include_calls = excluded.quiet_include_calls, timezone = excluded.timezone, updated_at = excluded.updated_at
                """,
                [
                    .text(appId), .text(uid), .int(Int64(quietHours.start)), .int(Int64(quietHours.end)),
                    .int(quietHours.includeCalls ? 1 : 0), .text(quietHours.timezone), .date(now),
                ])
        }
    }
}
