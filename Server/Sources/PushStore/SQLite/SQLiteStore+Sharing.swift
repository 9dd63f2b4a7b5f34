#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension SQLiteStore {
    public func withSharedProviderToken(
        teamId: String, keyId: String, _ update: (SharedProviderToken?) throws -> SharedProviderToken?
    ) throws -> SharedProviderToken? {
        // One connection behind a lock: the lock is the mutual exclusion; the transaction makes
        // the read and the write one step for other processes on the file.
        try withConnection { connection in
            try connection.transaction {
                let stored = try connection.query(
                    "SELECT sealed, issued_at FROM provider_tokens WHERE team_id = ? AND key_id = ?", [.text(teamId), .text(keyId)]
                ) { SharedProviderToken(sealed: $0.blob(0), issuedAt: $0.date(1)) }.first
                guard let fresh = try update(stored) else { return stored }
                try connection.run(
                    "INSERT INTO provider_tokens (team_id, key_id, sealed, issued_at) VALUES (?, ?, ?, ?) "
                        + "ON CONFLICT (team_id, key_id) DO UPDATE SET sealed = excluded.sealed, issued_at = excluded.issued_at",
                    [.text(teamId), .text(keyId), .blob(fresh.sealed), .date(fresh.issuedAt)])
                return fresh
            }
        }
    }

    public func exportRows(table: StoreTable, batchSize: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        let columns = table.columns.joined(separator: ", ")
        let size = max(1, batchSize)
        var after: Int64 = .min
        while true {
            // Keyset pages by rowid: one short read at a time, however large the table.
            let page = try withConnection { connection in
                try connection.query(
                    "SELECT rowid, \(columns) FROM \(table.rawValue) WHERE rowid > ? ORDER BY rowid LIMIT ?",
                    [.int(after), .int(Int64(size))]
                ) { row in (row.int(0), (1...table.columns.count).map { row.value(Int32($0)) }) }
            }
            guard let last = page.last else { return }
            after = last.0
            try body(page.map(\.1))
            if page.count < size { return }
        }
    }

    public func importRows(table: StoreTable, rows: [[StoreValue]]) throws {
        let columns = table.columns
        let sql =
            "INSERT INTO \(table.rawValue) (\(columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        try withConnection { connection in
            try connection.transaction {
                for row in rows {
                    guard row.count == columns.count else {
                        throw StoreError.database("\(table.rawValue): a row has \(row.count) values for \(columns.count) columns")
                    }
                    try connection.run(sql, row.map(SQLValue.init))
                }
            }
        }
    }

    public func rowCount(table: StoreTable) throws -> Int {
        try withConnection { try $0.query("SELECT COUNT(*) FROM \(table.rawValue)") { Int($0.int(0)) }.first ?? 0 }
    }
}
