#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

/// The default store: one SQLite file in WAL mode, one connection behind a lock.
///
/// Durability: `synchronous=FULL` by default, so a committed send survives a process crash
/// and a power loss; `NORMAL` survives process crashes only and is faster.
public final class SQLiteStore: ServiceStore, @unchecked Sendable {
    // @unchecked: the connection is only used inside `database.withLock`.
    private let database: Locked<SQLiteConnection>
    /// What runs after jobs were added (``onJobsAdded(_:)``).
    private let jobsAdded = Locked<(@Sendable () -> Void)?>(nil)

    /// The page cache's limit, in KiB.
    static let cacheKiB = 16_384

    /// The schema version after migrations.
    public let schemaVersion: Int
    /// Checkpoints the log off the commits (nil for an in-memory database).
    private let checkpointer: SQLiteCheckpointer?

    /// Who holds the leases of group sends this store claims: the process's identity
    /// (``ProcessIdentity``) and a random part, so that two stores of one process are two holders.
    let groupLeaseOwner = ProcessIdentity.current + "#" + String(UInt64.random(in: 1...UInt64.max), radix: 16)

    /// Opens or creates the database at `path` and migrates it. A new database file is created
    /// with mode 0600 (not SQLite's 0644), and so are its `-wal` and `-shm` files, which SQLite
    /// creates with the database file's mode.
    public init(path: String, synchronousFull: Bool = true) throws {
        Self.createPrivateFile(path)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL")
        try connection.execute("PRAGMA synchronous=\(synchronousFull ? "FULL" : "NORMAL")")
        try connection.execute("PRAGMA foreign_keys=ON")
        // SQLite's default page cache is 2 MiB: at a few thousand pushes a second the jobs and
        // the tokens they read do not fit, and each page missed is a read from the OS. 16 MiB
        // at most (it grows only as pages are read).
        try connection.execute("PRAGMA cache_size=-\(Self.cacheKiB)")
        schemaVersion = try Self.migrate(connection)
        if try connection.query("PRAGMA journal_mode", [], { $0.text(0) }).first == "wal" {
            let checkpointer = try SQLiteCheckpointer(path: path, synchronousFull: synchronousFull)
            connection.checkpoint(with: checkpointer)
            self.checkpointer = checkpointer
        } else {
            checkpointer = nil
        }
        database = Locked(connection)
    }

    deinit {
        checkpointer?.stop()
    }

    /// Migrates the database at `path` (created when missing) to schema `version` (at most the
    /// newest) without opening a store, and returns the version it has then. Tests use it to
    /// build a database of an earlier version and fill it as that version's service did.
    public static func migrate(path: String, to version: Int) throws -> Int {
        createPrivateFile(path)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL")
        try connection.execute("PRAGMA foreign_keys=ON")
        return try migrate(connection, to: version)
    }

    private static func migrate(_ connection: SQLiteConnection, to target: Int = Migrations.all.count) throws -> Int {
        try connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)")
        let current = try connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") { Int($0.int(0)) }.first ?? 0
        for (index, sql) in Migrations.all.enumerated() where index + 1 > current && index + 1 <= target {
            try connection.transaction {
                try connection.execute(sql)
                try connection.run(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [.int(Int64(index + 1)), .date(Date())])
            }
        }
        return max(current, min(target, Migrations.all.count))
    }

    /// Creates `path` as an empty file of mode 0600 when nothing is there (an empty file is an
    /// empty database to SQLite). Leaves an existing file, `:memory:` and `file:` URIs alone.
    static func createPrivateFile(_ path: String) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
    }

    /// Registers what runs after the commit of added jobs, on the thread that added them.
    public func onJobsAdded(_ handler: @escaping @Sendable () -> Void) {
        jobsAdded.withLock { $0 = handler }
    }

    /// Runs the ``onJobsAdded(_:)`` handler when `jobs` or `webhooks` hold work (a push job
    /// that was not skipped, or a webhook job). Call after the commit, outside the connection.
    func reportAdded(_ jobs: [PushJob], webhooks: [WebhookJob]) {
        reportAdded(toSend: jobs.contains { !$0.skipped }, webhooks: !webhooks.isEmpty)
    }

    /// Runs the handler of ``onJobsAdded(_:)`` when push jobs to send or webhook jobs were added.
    func reportAdded(toSend: Bool, webhooks: Bool) {
        guard toSend || webhooks else { return }
        jobsAdded.withLock { $0 }?()
    }

    @discardableResult
    /// Runs `body` with the connection, serialized with every other call.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try database.withLock { try body($0) }
    }

    /// The journal mode SQLite reports (`wal`), for tests and diagnostics.
    public func journalMode() throws -> String {
        try withConnection { try $0.query("PRAGMA journal_mode") { $0.text(0) }.first ?? "" }
    }
}
