import CSQLite

/// Runs SQL on a SQLite file directly, as an older version of the service left it (tests fill a
/// database of an earlier schema with it, and read columns no store API returns).
public enum SQLiteFile {
    /// A failed statement, with SQLite's message.
    public struct Failure: Error, CustomStringConvertible {
        /// SQLite's message.
        public let description: String
    }

    /// Runs `sql` (one or more statements) on the file at `path` and returns the rows of the
    /// last one, each column as text (`NULL` for null).
    @discardableResult
    public static func execute(path: String, _ sql: String) throws -> [[String]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            defer { sqlite3_close(db) }
            throw Failure(description: db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)")
        }
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 5_000)
        var rows: [[String]] = []
        var rest = sql
        while !rest.allSatisfy(\.isWhitespace) {
            var stmt: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let consumed: Int = try rest.withCString { start in
                guard sqlite3_prepare_v2(db, start, -1, &stmt, &tail) == SQLITE_OK else {
                    throw Failure(description: String(cString: sqlite3_errmsg(db)))
                }
                return tail.map { $0 - start } ?? rest.utf8.count
            }
            rest = String(decoding: Array(rest.utf8).dropFirst(consumed), as: UTF8.self)
            guard let stmt else { continue }
            defer { sqlite3_finalize(stmt) }
            rows = []
            while true {
                let rc = sqlite3_step(stmt)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw Failure(description: String(cString: sqlite3_errmsg(db))) }
                rows.append(
                    (0..<sqlite3_column_count(stmt)).map { column in
                        sqlite3_column_type(stmt, column) == SQLITE_NULL
                            ? "NULL" : String(cString: sqlite3_column_text(stmt, column))
                    })
            }
        }
        return rows
    }
}
