import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One SQLite connection. Not thread-safe on its own: ``SQLiteStore`` guards it with a lock.
final class SQLiteConnection {
    private var db: OpaquePointer?
    /// Prepared statements kept for reuse, by SQL text. A statement in use is taken out of
    /// the cache and put back (reset, bindings cleared) when released, so nested uses of
    /// the same SQL each get their own statement.
    private var cache: [String: OpaquePointer] = [:]
    /// Most statements kept; the claim and finish statements vary with their batch size.
    private static let cacheLimit = 128

    /// Opens (or creates) the database file.
    init(path: String) throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw StoreError.database("open failed: \(message)")
        }
        sqlite3_busy_timeout(db, 5_000)
    }

    /// Told about each commit's log size instead of SQLite checkpointing in the commit (kept
    /// here: the WAL hook holds it unretained).
    private var walObserver: SQLiteCheckpointer?

    deinit {
        if walObserver != nil { sqlite3_wal_hook(db, nil, nil) }
        for stmt in cache.values { sqlite3_finalize(stmt) }
        sqlite3_close_v2(db)
    }

    /// Hands the log's size after each commit to `observer` (``SQLiteCheckpointer``), which
    /// checkpoints on its own thread: SQLite's automatic checkpoint inside the commit is off.
    func checkpoint(with observer: SQLiteCheckpointer) {
        walObserver = observer
        sqlite3_wal_hook(
            db,
            { context, _, _, pages in
                if let context {
                    Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walPages: Int(pages))
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(observer).toOpaque())
    }

    /// Runs one or more statements without parameters.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &error) != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw StoreError.database(message)
        }
    }

    /// Prepares a statement and binds `values` to its `?` parameters in order.
    func prepare(_ sql: String, _ values: [SQLValue] = []) throws -> SQLiteStatement {
        if let stmt = cache.removeValue(forKey: sql) {
            let statement = SQLiteStatement(stmt, connection: self, cacheKey: sql)
            try statement.bind(values)
            return statement
        }
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw StoreError.database(lastError)
        }
        let statement = SQLiteStatement(stmt, connection: self, cacheKey: sql)
        try statement.bind(values)
        return statement
    }

    /// Takes back a released statement for reuse, or finalizes it.
    func recycle(_ stmt: OpaquePointer, sql: String) {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
        if cache[sql] == nil, cache.count < Self.cacheLimit {
            cache[sql] = stmt
        } else {
            sqlite3_finalize(stmt)
        }
    }

    /// Runs a statement that returns no rows; returns the number of changed rows.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
        let statement = try prepare(sql, values)
        while try statement.step() {}
        return Int(sqlite3_changes(db))
    }

    /// Runs a query and maps each row.
    func query<T>(_ sql: String, _ values: [SQLValue] = [], _ map: (SQLiteStatement) throws -> T) throws -> [T] {
        let statement = try prepare(sql, values)
        var rows: [T] = []
        while try statement.step() {
            rows.append(try map(statement))
        }
        return rows
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`), committing on success.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    var lastError: String {
        String(cString: sqlite3_errmsg(db))
    }

    var lastErrorCode: Int32 {
        sqlite3_extended_errcode(db)
    }
}
