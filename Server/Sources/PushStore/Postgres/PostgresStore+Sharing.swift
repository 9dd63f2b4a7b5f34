#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension PostgresStore {
    public func withSharedProviderToken(
        teamId: String, keyId: String, _ update: (SharedProviderToken?) throws -> SharedProviderToken?
    ) throws -> SharedProviderToken? {
        try withConnection { connection in
            try connection.transaction {
                // Every instance's update of this (team, key) waits here for the one before it,
                // and then reads what that one stored.
                try connection.query(
                    """
                    SELECT pg_advisory_xact_lock(hashtextextended(
                        'push-server provider token ' || current_schema() || ' ' || length($1) || ' ' || $1 || ' ' || $2, 0))
                    """,
                    [.text(teamId), .text(keyId)])
                let stored = try connection.query(
                    "SELECT sealed, issued_at FROM provider_tokens WHERE team_id = $1 AND key_id = $2", [.text(teamId), .text(keyId)]
                ).first { SharedProviderToken(sealed: $0.blob(0), issuedAt: $0.date(1)) }
                guard let fresh = try update(stored) else { return stored }
                try connection.query(
                    """
                    INSERT INTO provider_tokens (team_id, key_id, sealed, issued_at) VALUES ($1, $2, $3, $4)
                    ON CONFLICT (team_id, key_id) DO UPDATE SET sealed = excluded.sealed, issued_at = excluded.issued_at
                    """,
                    [.text(teamId), .text(keyId), .bytea(fresh.sealed), .date(fresh.issuedAt)])
                return fresh
            }
        }
    }

    /// Each table's primary key, the order of its export pages.
    static func primaryKey(_ table: StoreTable) -> [String] {
        switch table {
        case .apps, .pushJobs, .webhookJobs: return ["id"]
        case .authTokens: return ["hash"]
        case .users: return ["app_id", "uid"]
        case .providers: return ["app_id", "id"]
        case .pushTokens: return ["app_id", "token"]
        case .idempotency: return ["app_id", "key"]
        case .calls: return ["app_id", "session_id"]
        case .providerTokens: return ["team_id", "key_id"]
        case .pushPreferences: return ["app_id", "uid"]
        case .pushMutes: return ["app_id", "uid", "receiver_type", "receiver"]
        case .pushGroupLevels: return ["app_id", "uid", "guid"]
        case .pushEvents: return ["app_id", "push_id", "step"]
        case .pushChanges: return ["seq"]
        case .revokedPushTokens: return ["app_id", "uid", "token"]
        case .unreadMessages: return ["app_id", "uid", "conversation_id", "message_id"]
        case .userActivity: return ["app_id", "uid", "source"]
        case .heldPushes: return ["app_id", "uid", "conversation_id", "job_id"]
        case .pushGroups: return ["app_id", "guid"]
        case .pushGroupMembers: return ["app_id", "guid", "uid"]
        case .pushGroupSends: return ["id"]
        case .pushGroupSendMembers: return ["send_id", "uid"]
        }
    }

    public func exportRows(table: StoreTable, batchSize: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        let columns = table.columns
        let key = Self.primaryKey(table)
        let keyIndexes = key.map { columns.firstIndex(of: $0)! }
        let size = max(1, batchSize)
        // Push jobs with the state, attempts and lease their queue rows hold.
        let source = table == .pushJobs ? "push_job_rows" : table.rawValue
        let select = "SELECT \(columns.joined(separator: ", ")) FROM \(source)"
        let order = " ORDER BY \(key.joined(separator: ", ")) LIMIT "
        let firstPage = select + order + "$1"
        let nextPage =
            select + " WHERE (\(key.joined(separator: ", "))) > (" + (1...key.count).map { "$\($0)" }.joined(separator: ", ") + ")" + order
            + "$\(key.count + 1)"
        var after: [StoreValue]?
        while true {
            // Keyset pages by primary key: one short read at a time, however large the table.
            let page = try withConnection { connection in
                let rows =
                    if let after {
                        try connection.query(nextPage, after.map(PGValue.init) + [.int(Int64(size))])
                    } else {
                        try connection.query(firstPage, [.int(Int64(size))])
                    }
                return rows.map { row in (0..<columns.count).map { row.value(Int32($0)) } }
            }
            guard let last = page.last else { return }
            after = keyIndexes.map { last[$0] }
            try body(page)
            if page.count < size { return }
        }
    }

    public func importRows(table: StoreTable, rows: [[StoreValue]]) throws {
        let columns = table.columns
        for row in rows where row.count != columns.count {
            throw StoreError.database("\(table.rawValue): a row has \(row.count) values for \(columns.count) columns")
        }
        guard !rows.isEmpty else { return }
        // Multi-row INSERTs (at most 65,535 parameters each), run once each: the parameter
        // types vary with the NULLs, so preparing them would only fill the cache.
        let perStatement = max(1, min(500, 65_535 / columns.count))
        let prefix = "INSERT INTO \(table.rawValue) (\(columns.joined(separator: ", "))) VALUES "
        try withConnection { connection in
            try connection.transaction {
                for start in stride(from: 0, to: rows.count, by: perStatement) {
                    let chunk = rows[start..<min(start + perStatement, rows.count)]
                    let tuples = chunk.indices.map { index in
                        let base = (index - start) * columns.count
                        return "(" + (1...columns.count).map { "$\(base + $0)" }.joined(separator: ", ") + ")"
                    }
                    try connection.queryOnce(prefix + tuples.joined(separator: ", "), chunk.flatMap { $0.map(PGValue.init) })
                }
                if table == .pushJobs {
                    // The imported jobs still to do get their queue rows (leased ones keep their lease).
                    let ids = rows.compactMap { row -> String? in
                        if case .text(let id) = row[0] { return id }
                        return nil
                    }
                    for statement in PostgresMigrations.moveActiveJobsToQueue(where: "id = ANY($1)") {
                        try connection.query(statement, [.textArray(ids)])
                    }
                }
                if table == .pushTokens || table == .pushChanges {
                    // Registrations (changes) after the import number above every imported row.
                    let sequence = table.rawValue + "_seq"
                    try connection.query(
                        "SELECT setval('\(sequence)', GREATEST((SELECT COALESCE(MAX(seq), 0) FROM \(table.rawValue)), "
                            + "(SELECT last_value FROM \(sequence)), 1))")
                }
            }
        }
    }

    public func rowCount(table: StoreTable) throws -> Int {
        try withConnection { try $0.query("SELECT COUNT(*) FROM \(table.rawValue)").first { Int($0.int(0)) } ?? 0 }
    }
}
