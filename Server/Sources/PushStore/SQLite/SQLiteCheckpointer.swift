#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerSupport

/// Copies the write-ahead log back into the database file on a thread of its own, so that no
/// commit pays for it (issue 32).
///
/// SQLite's automatic checkpoint runs inside the commit that takes the log past 1,000 pages: the
/// 20,000-job accept of a send wrote ~15 MB to the log and then, still inside the API's request,
/// copied it all into the database and synced it (0.1–0.2 s of its ~0.35 s). The store turns the
/// automatic checkpoint off (a WAL hook replaces it) and, once a commit leaves at least
/// ``walPages`` pages in the log, wakes this worker, which runs a `PASSIVE` checkpoint on its own
/// connection: it copies what is committed without blocking the writer or the readers, and the
/// next write transaction starts the log over once everything was copied. Durability is the
/// same: a commit is durable when it is in the log (synced with `synchronous=FULL`); a checkpoint
/// syncs the database file as SQLite's own does. A crash before a checkpoint leaves the committed
/// transactions in the log, where the next opening finds them.
final class SQLiteCheckpointer: @unchecked Sendable {
    // @unchecked: the connection is only used by the worker's thread, inside `connection.withLock`.
    /// SQLite's own threshold (`wal_autocheckpoint`'s default).
    static let walPages = 1_000
    private let connection: Locked<SQLiteConnection>
    private let worker = BackgroundWorker(name: "sqlite-checkpoint", idle: 60)

    /// Opens the checkpointing connection to the database at `path` and starts its thread; it
    /// checkpoints when woken, and every minute.
    init(path: String, synchronousFull: Bool) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA synchronous=\(synchronousFull ? "FULL" : "NORMAL")")
        self.connection = Locked(connection)
        worker.start { [connection = self.connection] in
            // Busy or failed: the next wake-up or the minute's pass tries again.
            try? connection.withLock { try $0.execute("PRAGMA wal_checkpoint(PASSIVE)") }
            return .idle
        }
    }

    /// Called after each commit with the pages in the log: wakes the worker at ``walPages``.
    func committed(walPages pages: Int) {
        if pages >= Self.walPages { worker.wake() }
    }

    /// Ends the worker (after the checkpoint under way).
    func stop() {
        _ = worker.stop(timeout: 30)
    }
}
