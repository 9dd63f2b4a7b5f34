#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Group membership (issue 31): one transaction per change, one prepared statement per uid (a
// body has at most 5,000), all on the `(app_id, guid, uid)` primary key.
extension SQLiteStore {
    public func setGroupMembers(appId: String, guid: String, uids: [String], replace: Bool, now: Date) throws -> GroupChange {
        try withConnection { connection in
            try connection.transaction {
                try Self.touchGroup(connection, appId: appId, guid: guid, now: now)
                var removed = 0
                if replace {
                    // Only the members not named again go: those named stay, with when they were added.
                    let keep = Set(uids)
                    let current = try connection.query(
                        "SELECT uid FROM push_group_members WHERE app_id = ? AND guid = ?", [.text(appId), .text(guid)]
                    ) { $0.text(0) }
                    for uid in current where !keep.contains(uid) {
                        removed += try connection.run(
                            "DELETE FROM push_group_members WHERE app_id = ? AND guid = ? AND uid = ?",
                            [.text(appId), .text(guid), .text(uid)])
                    }
                }
                var added = 0
                for uid in uids {
                    added += try connection.run(
                        """
                        INSERT INTO push_group_members (app_id, guid, uid, added_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (app_id, guid, uid) DO NOTHING
                        """,
                        [.text(appId), .text(guid), .text(uid), .date(now)])
                }
                return GroupChange(added: added, removed: removed, count: try Self.memberCount(connection, appId: appId, guid: guid))
            }
        }
    }

    public func removeGroupMember(appId: String, guid: String, uid: String, now: Date) throws -> GroupChange? {
        try withConnection { connection in
            try connection.transaction {
                guard try Self.groupExists(connection, appId: appId, guid: guid) else { return nil }
                let removed = try connection.run(
                    "DELETE FROM push_group_members WHERE app_id = ? AND guid = ? AND uid = ?", [.text(appId), .text(guid), .text(uid)])
                if removed > 0 { try Self.touchGroup(connection, appId: appId, guid: guid, now: now) }
                return GroupChange(added: 0, removed: removed, count: try Self.memberCount(connection, appId: appId, guid: guid))
            }
        }
    }

    public func groupMembers(appId: String, guid: String, after: String?, limit: Int) throws -> GroupMembersPage? {
        // Reads only: the store's lock keeps this process's writers out between them.
        try withConnection { connection in
            guard try Self.groupExists(connection, appId: appId, guid: guid) else { return nil }
            // One more than asked for: whether another page follows.
            let uids = try connection.query(
                "SELECT uid FROM push_group_members WHERE app_id = ? AND guid = ? AND uid > ? ORDER BY uid LIMIT ?",
                [.text(appId), .text(guid), .text(after ?? ""), .int(Int64(max(limit, 1) + 1))]
            ) { $0.text(0) }
            let page = Array(uids.prefix(max(limit, 1)))
            return GroupMembersPage(
                uids: page, next: uids.count > page.count ? page.last : nil,
                count: try Self.memberCount(connection, appId: appId, guid: guid))
        }
    }

    public func deleteGroup(appId: String, guid: String) throws -> Bool {
        // The members go by ON DELETE CASCADE, in this statement's transaction.
        try withConnection {
            try $0.run("DELETE FROM push_groups WHERE app_id = ? AND guid = ?", [.text(appId), .text(guid)]) > 0
        }
    }

    /// Creates the group when it is new, else records the change's time.
    private static func touchGroup(_ connection: SQLiteConnection, appId: String, guid: String, now: Date) throws {
        try connection.run(
            """
            INSERT INTO push_groups (app_id, guid, created_at, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_id, guid) DO UPDATE SET updated_at = excluded.updated_at
            """,
            [.text(appId), .text(guid), .date(now), .date(now)])
    }

    static func groupExists(_ connection: SQLiteConnection, appId: String, guid: String) throws -> Bool {
        try connection.query("SELECT 1 FROM push_groups WHERE app_id = ? AND guid = ?", [.text(appId), .text(guid)]) { $0.int(0) }
            .first != nil
    }

    /// A group's members: a count over the primary key's prefix.
    private static func memberCount(_ connection: SQLiteConnection, appId: String, guid: String) throws -> Int {
        Int(
            try connection.query(
                "SELECT COUNT(*) FROM push_group_members WHERE app_id = ? AND guid = ?", [.text(appId), .text(guid)]
            ) { $0.int(0) }.first ?? 0)
    }
}
