#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SQLiteStore {
    /// Deletes in batches of `batchSize` rows, each batch one statement (its own short
    /// transaction) with the connection lock released in between, so sends and the delivery
    /// engine go on while a large backlog is purged. The `created_at` (`at`) indexes of schema
    /// 8 find the candidates; a finished job finished after it was created, so
    /// `finished_at < cutoff` implies `created_at < cutoff`.
    public func purgeFinished(before cutoff: Date, batchSize: Int) throws -> RetentionCounts {
        // `index`: the one to read (SQLite, without statistics, would rather take a job table's
        // state index and read every finished job, old or not, on each run).
        func purge(_ table: String, index: String, where condition: String) throws -> Int {
            try Retention.inBatches(of: batchSize) { size in
                try withConnection {
                    try $0.run(
                        "DELETE FROM \(table) WHERE rowid IN "
                            + "(SELECT rowid FROM \(table) INDEXED BY \(index) WHERE \(condition) LIMIT ?)",
                        [.date(cutoff), .int(Int64(size))])
                }
            }
        }
        var counts = RetentionCounts()
        // `?1`: the cutoff, used twice.
        counts.pushJobs = try purge(
            "push_jobs", index: "push_jobs_created",
            where: "created_at < ?1 AND finished_at < ?1 AND state IN (\(Retention.finalPushStateList))")
        counts.webhookJobs = try purge(
            "webhook_jobs", index: "webhook_jobs_created", where: "created_at < ?1 AND finished_at < ?1 AND state = '\(JobState.delivered)'"
        )
        counts.pushEvents = try purge("push_events", index: "push_events_at", where: "at < ?1")
        counts.idempotencyKeys = try purge("idempotency", index: "idempotency_created", where: "created_at < ?1")
        counts.calls = try purge("calls", index: "calls_created", where: "created_at < ?1")
        counts.changes = try purgeChanges(before: cutoff, batchSize: batchSize)
        counts.revokedPushTokens = try purge("revoked_push_tokens", index: "revoked_push_tokens_at", where: "revoked_at < ?1")
        counts.readMessages = try purge("unread_messages", index: "unread_messages_read", where: "read_at < ?1")
        counts.groupSends = try purgeGroupSends(before: cutoff, batchSize: batchSize)
        return counts
    }
}
