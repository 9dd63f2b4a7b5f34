#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Group membership (issue 31): SQLiteStore's semantics, each change one transaction of a few
// statements however many uids (arrays unnested), on the `(app_id, guid, uid)` primary key.
extension PostgresStore {
    public func setGroupMembers(appId: String, guid: String, uids: [String], replace: Bool, now: Date) throws -> GroupChange {
        let distinct = Array(Set(uids))
        return try withConnection { connection in
            try connection.transaction {
                // The group row first: concurrent changes of one group wait here for each other.
                try Self.touchGroup(connection, appId: appId, guid: guid, now: now)
                var removed = 0
                if replace {
                    removed = try connection.query(
                        "DELETE FROM push_group_members WHERE app_id = $1 AND guid = $2 AND NOT (uid = ANY($3::text[]))",
                        [.text(appId), .text(guid), .textArray(distinct)]
                    ).affected
                }
                let added = try connection.query(
                    """
                    INSERT INTO push_group_members (app_id, guid, uid, added_at)
                    SELECT $1, $2, u, $4 FROM unnest($3::text[]) AS t(u)
                    ON CONFLICT (app_id, guid, uid) DO NOTHING
                    """,
                    [.text(appId), .text(guid), .textArray(distinct), .date(now)]
                ).affected
                return GroupChange(added: added, removed: removed, count: try Self.memberCount(connection, appId: appId, guid: guid))
            }
        }
    }

    public func removeGroupMember(appId: String, guid: String, uid: String, now: Date) throws -> GroupChange? {
        try withConnection { connection in
            try connection.transaction {
                // The group row locked: its members cannot change under the count below.
                let exists = try connection.query(
                    "SELECT 1 FROM push_groups WHERE app_id = $1 AND guid = $2 FOR UPDATE", [.text(appId), .text(guid)]
                ).first { $0.int(0) }
                guard exists != nil else { return nil }
                let removed = try connection.query(
                    "DELETE FROM push_group_members WHERE app_id = $1 AND guid = $2 AND uid = $3", [.text(appId), .text(guid), .text(uid)]
                ).affected
                if removed > 0 { try Self.touchGroup(connection, appId: appId, guid: guid, now: now) }
                return GroupChange(added: 0, removed: removed, count: try Self.memberCount(connection, appId: appId, guid: guid))
            }
        }
    }

    public func groupMembers(appId: String, guid: String, after: String?, limit: Int) throws -> GroupMembersPage? {
        try withConnection { connection in
            try connection.transaction {
                // One snapshot: the page and the count agree.
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let exists = try connection.query(
                    "SELECT 1 FROM push_groups WHERE app_id = $1 AND guid = $2", [.text(appId), .text(guid)]
                ).first { $0.int(0) }
                guard exists != nil else { return nil }
                let uids = try connection.query(
                    "SELECT uid FROM push_group_members WHERE app_id = $1 AND guid = $2 AND uid > $3 ORDER BY uid LIMIT $4",
                    [.text(appId), .text(guid), .text(after ?? ""), .limit(max(limit, 1) + 1)]
                ).map { $0.text(0) }
                let page = Array(uids.prefix(max(limit, 1)))
                return GroupMembersPage(
                    uids: page, next: uids.count > page.count ? page.last : nil,
                    count: try Self.memberCount(connection, appId: appId, guid: guid))
            }
        }
    }

    public func deleteGroup(appId: String, guid: String) throws -> Bool {
        // The members go by ON DELETE CASCADE, in this statement's transaction.
        try withConnection {
            try $0.query("DELETE FROM push_groups WHERE app_id = $1 AND guid = $2", [.text(appId), .text(guid)]).affected > 0
        }
    }

    /// Creates the group when it is new, else records the change's time (and locks its row
    /// until the transaction ends).
    private static func touchGroup(_ connection: PGConnection, appId: String, guid: String, now: Date) throws {
        try connection.query(
            """
            INSERT INTO push_groups (app_id, guid, created_at, updated_at) VALUES ($1, $2, $3, $3)
            ON CONFLICT (app_id, guid) DO UPDATE SET updated_at = excluded.updated_at
            """,
            [.text(appId), .text(guid), .date(now)])
    }

    /// A group's members: a count over the primary key's prefix.
    private static func memberCount(_ connection: PGConnection, appId: String, guid: String) throws -> Int {
        Int(
            try connection.query(
                "SELECT COUNT(*) FROM push_group_members WHERE app_id = $1 AND guid = $2", [.text(appId), .text(guid)]
            ).first { $0.int(0) } ?? 0)
    }
}
