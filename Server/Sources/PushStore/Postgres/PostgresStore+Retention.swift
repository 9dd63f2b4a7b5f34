#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PostgresStore {
    /// Deletes in batches of `batchSize` rows, each batch one statement on a connection taken
    /// from the pool for that statement only, so a large backlog never holds a connection, a
    /// lock or a transaction for long.
    ///
    /// Push jobs: only `push_jobs` rows in a final state finished before the cutoff and with no
    /// `push_queue` row (from schema 7 a job still to do, pending or leased, has a queue row and
    /// its job row says `pending`): the queue itself is never touched. Candidates are found on
    /// the `created_at` indexes of schema 8 (a finished job finished after it was created;
    /// `created_at` never changes, so a finish stays a HOT update). `FOR UPDATE SKIP LOCKED`:
    /// instances purging at the same time take different rows and never wait for each other.
    public func purgeFinished(before cutoff: Date, batchSize: Int) throws -> RetentionCounts {
        func purge(_ sql: String) throws -> Int {
            try Retention.inBatches(of: batchSize) { size in
                try withConnection { try $0.query(sql, [.date(cutoff), .limit(size)]).affected }
            }
        }
        func purge(_ table: String, where condition: String) throws -> Int {
            try purge(
                """
                DELETE FROM \(table) WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM \(table) WHERE \(condition) LIMIT $2 FOR UPDATE SKIP LOCKED))
                """)
        }
        var counts = RetentionCounts()
        counts.pushJobs = try purge(
            """
            DELETE FROM push_jobs WHERE id = ANY(ARRAY(
                SELECT j.id FROM push_jobs j
                WHERE j.created_at < $1 AND j.finished_at < $1 AND j.state IN (\(Retention.finalPushStateList))
                    AND NOT EXISTS (SELECT 1 FROM push_queue q WHERE q.id = j.id)
                LIMIT $2 FOR UPDATE OF j SKIP LOCKED))
            """)
        counts.webhookJobs = try purge(
            "webhook_jobs", where: "created_at < $1 AND finished_at < $1 AND state = '\(JobState.delivered)'")
        counts.pushEvents = try purge("push_events", where: "at < $1")
        counts.idempotencyKeys = try purge("idempotency", where: "created_at < $1")
        counts.calls = try purge("calls", where: "created_at < $1")
        counts.changes = try purgeChanges(before: cutoff, batchSize: batchSize)
        counts.revokedPushTokens = try purge("revoked_push_tokens", where: "revoked_at < $1")
        counts.readMessages = try purge("unread_messages", where: "read_at < $1")
        // Group sends whose expansion ended: the members they were taken for first, then the sends.
        _ = try purge(
            """
            DELETE FROM push_group_send_members WHERE ctid = ANY(ARRAY(
                SELECT m.ctid FROM push_group_sends s JOIN push_group_send_members m ON m.send_id = s.id
                WHERE s.finished_at < $1 LIMIT $2 FOR UPDATE OF m SKIP LOCKED))
            """)
        counts.groupSends = try purge("push_group_sends", where: "finished_at < $1")
        return counts
    }
}
