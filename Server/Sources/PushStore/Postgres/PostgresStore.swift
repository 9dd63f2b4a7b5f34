#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CLibPQ
import PushCore
import ServerSupport

/// The store for several instances: PostgreSQL through libpq, with the semantics of
/// ``SQLiteStore``.
///
/// - A pool of `poolSize` connections (opened when needed; a caller waits while all are in
///   use); each statement is prepared once per connection and runs with binary parameters
///   and results. A connection the server dropped is reopened at its next use.
/// - Claims lock rows with `FOR UPDATE SKIP LOCKED`, so instances never claim the same job.
/// - Adding jobs sends `NOTIFY push_jobs_<schema>` with the commit; ``onJobsAdded(_:)``
///   hears every instance's (LISTEN on a dedicated session).
/// - The same session holds an advisory lock named after this store's lease owner: a lease
///   whose owner's lock is free belongs to a store that is gone (see
///   ``releaseAbandonedLeases(now:)``).
///
/// The tables live in the connection's current schema (`search_path`, which the URL can
/// set with `?options=-csearch_path%3D<schema>`).
public final class PostgresStore: ServiceStore, @unchecked Sendable {
    // @unchecked: the pool and the listener are thread-safe; the other properties are constants.
    /// The schema version after migrations.
    public let schemaVersion: Int
    let pool: PGPool
    private let listener: PGListener
    /// Who holds the leases this store takes: the process's identity and a random part, so
    /// two stores in one process are two owners.
    let leaseOwner: String
    /// This schema's jobs channel (for `pg_notify`).
    let jobsChannel: String
    /// `NOTIFY` of this schema's jobs channel, sent with the commit of new jobs.
    let notifyJobs: String

    /// Opens a pool of `poolSize` connections to `url` (a libpq connection URI,
    /// `postgres://user@host:port/db?…`) and migrates the database. The listener's lost and
    /// regained connections are told to `logger`.
    public init(url: String, poolSize: Int = 8, logger: Logger) throws {
        let parameters = try PGParameters(url: url)
        let pool = PGPool(parameters, size: poolSize)
        let schema = try pool.withConnection { connection in
            try connection.query("SELECT current_schema()").first { $0.optionalText(0) } ?? nil
        }
        guard let schema else { throw StoreError.database("PostgreSQL: the search_path names no existing schema") }
        schemaVersion = try pool.withConnection { try Self.migrate($0) }
        jobsChannel = Self.channelName(schema: schema)
        let channel = Self.quoted(jobsChannel)
        notifyJobs = "NOTIFY \(channel)"
        let owner = ProcessIdentity.current + "/" + String(UInt64.random(in: 1...UInt64.max), radix: 16)
        leaseOwner = owner
        listener = try PGListener(
            parameters, channel: channel,
            ownerLock: "SELECT pg_advisory_lock(\(Self.ownerLockKey("'" + owner.replacing("'", with: "''") + "'")))",
            logger: logger)
        self.pool = pool
    }

    deinit {
        close()
    }

    /// Registers what runs when any instance on the database adds jobs (LISTEN/NOTIFY), this
    /// one included. It runs on the listener's thread (keep it short), also once after the
    /// listener reconnected, as notifications sent while it was away are lost.
    public func onJobsAdded(_ handler: @escaping @Sendable () -> Void) {
        listener.onNotification(handler)
    }

    /// Closes the pool and the listener (which ends this store's advisory lock: other
    /// instances then release its leases).
    public func close() {
        listener.close()
        pool.close()
    }

    /// Runs `body` with a connection of the pool.
    @discardableResult
    func withConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    /// Migrates the database at `url` to schema `version` (at most the newest) without
    /// opening a store, and returns the version it has then. Tests use it to build a database
    /// of an earlier version and fill it as that version's service did.
    public static func migrate(url: String, to version: Int) throws -> Int {
        let pool = PGPool(try PGParameters(url: url), size: 1)
        defer { pool.close() }
        return try pool.withConnection { try migrate($0, to: version) }
    }

    private static func migrate(_ connection: PGConnection, to target: Int = PostgresMigrations.all.count) throws -> Int {
        let target = min(target, PostgresMigrations.all.count)
        while true {
            let done = try connection.transaction { () throws -> Bool in
                // One migrator per schema at a time, so instances started together do not race
                // (even CREATE TABLE IF NOT EXISTS can fail when two run it at once).
                try connection.query("SELECT pg_advisory_xact_lock(hashtextextended('push-server migrations ' || current_schema(), 0))")
                try connection.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)")
                let current = try connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").first { Int($0.int(0)) } ?? 0
                guard current < target else { return true }
                try connection.execute(PostgresMigrations.all[current])
                try connection.query(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", [.int(Int64(current + 1)), .date(Date())])
                return false
            }
            if done {
                return try connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").first { Int($0.int(0)) } ?? 0
            }
        }
    }

    /// The SQL of the advisory lock key of a lease owner (`owner` is SQL text: a literal or a
    /// column).
    static func ownerLockKey(_ owner: String) -> String {
        "hashtextextended('push-server lease owner ' || \(owner), 0)"
    }

    /// `push_jobs_<schema>`, or a hash of the schema when that is longer than an identifier.
    static func channelName(schema: String) -> String {
        let name = "push_jobs_" + schema
        if name.utf8.count <= 63 { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in schema.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "push_jobs_" + String(hash, radix: 16)
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacing("\"", with: "\"\"") + "\""
    }
}
