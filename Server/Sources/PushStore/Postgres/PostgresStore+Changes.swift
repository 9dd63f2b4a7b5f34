#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

// Edits and deletions of messages, and the users' changes feeds (schema 12).
//
// Positions in commit order: a transaction that records changes takes the transaction-scoped
// advisory lock `changesLock` before it takes positions from `push_changes_seq`, and holds it to
// its commit. So every committed change has a lower position than any change still being
// written, and a reader that returns the committed changes after a cursor never passes over one
// that commits later. The cursor of "now" is read under the lock's shared form (no position is
// then taken and not yet committed).
extension PostgresStore {
    /// The advisory lock of this schema's changes feed.
    static let changesLock = "hashtextextended('push-server changes ' || current_schema(), 0)"

    public func record(changes: [PushChange], pushJobs: [PushJob]) throws {
        guard !changes.isEmpty || !pushJobs.isEmpty else { return }
        try withConnection { connection in
            try connection.transaction {
                try insert(pushJobs, webhooks: [], into: connection)
                try Self.insert(changes, into: connection)
            }
        }
    }

    public func changes(appId: String, uid: String, after: Int64, limit: Int) throws -> PushChangesPage {
        let size = max(1, limit)
        return try withConnection { connection in
            // The changes first, then what was purged: a purge in between makes the answer say
            // `truncated` with changes it still had, never miss that changes went.
            let rows = try connection.query(
                """
                SELECT seq, app_id, uid, kind, conversation_id, message_id, notification_id, title, body, unread_count, at, created_at
                FROM push_changes WHERE app_id = $1 AND uid = $2 AND seq > $3 ORDER BY seq LIMIT $4
                """,
                [.text(appId), .text(uid), .int(after), .int(Int64(size + 1))]
            ).map(Self.changeRow)
            let purged =
                try connection.query(
                    "SELECT COALESCE(changes_purged_through, 0) FROM users WHERE app_id = $1 AND uid = $2", [.text(appId), .text(uid)]
                ).first { $0.int(0) } ?? 0
            let latest =
                try connection.query("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM push_changes_seq").first { $0.int(0) } ?? 0
            return PushChangesPage(entries: Array(rows.prefix(size)), hasMore: rows.count > size, purgedThrough: purged, latest: latest)
        }
    }

    public func latestChangePosition() throws -> Int64 {
        try withConnection { connection in
            try connection.transaction {
                try connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.changesLock))")
                return try connection.query("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM push_changes_seq").first {
                    $0.int(0)
                } ?? 0
            }
        }
    }

    public func acceptMessageAction(
        appId: String, idempotencyKey: String, requestHash: Data, collapseIds: [String], now: Date,
        plan: ([MessageJob]) throws -> MessageActionPlan
    ) throws -> SendAcceptance {
        try withConnection { connection in
            try connection.transaction {
                // The key first, as a send does: a concurrent request with the same key waits here.
                // Its answer is written at the end, when the plan has made it.
                let inserted = try connection.query(
                    """
                    INSERT INTO idempotency (app_id, key, request_hash, response, created_at) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (app_id, key) DO NOTHING
                    """,
                    [.text(appId), .text(idempotencyKey), .bytea(requestHash), .bytea(Data()), .date(now)]
                ).affected
                if inserted == 0 {
                    let seen = try connection.query(
                        "SELECT request_hash, response FROM idempotency WHERE app_id = $1 AND key = $2",
                        [.text(appId), .text(idempotencyKey)]
                    ).first { ($0.blob(0), $0.blob(1)) }
                    guard let (hash, stored) = seen else { throw StoreError.conflict }
                    return hash == requestHash ? .replayed(response: stored) : .keyReused
                }
                // The queue rows of the message's jobs still waiting, locked in id order (claims
                // skip locked rows, so none is leased until this commits). A row leased in the
                // meantime no longer matches and is left to its sender.
                let waiting = Set(
                    try connection.query(
                        """
                        SELECT id FROM push_queue WHERE lane <> \(PostgresMigrations.leasedLane) AND id IN (
                            SELECT id FROM push_jobs WHERE app_id = $1 AND kind = 'chat' AND collapse_id = ANY($2::text[]))
                        ORDER BY id FOR UPDATE
                        """,
                        [.text(appId), .textArray(collapseIds)]
                    ).map { $0.text(0) })
                let found = try connection.query(
                    """
                    SELECT \(Self.jobColumnList()) FROM push_job_rows
                    WHERE app_id = $1 AND kind = 'chat' AND collapse_id = ANY($2::text[]) AND state <> 'skipped' ORDER BY created_at, id
                    """,
                    [.text(appId), .textArray(collapseIds)]
                ).map { row in
                    let job = PushJob(row: row)
                    return MessageJob(job: job, pending: waiting.contains(job.id))
                }
                let decided = try plan(found)
                let skip = decided.skip.filter(waiting.contains)
                if !skip.isEmpty {
                    try connection.query(
                        """
                        WITH gone AS (
                            DELETE FROM push_queue WHERE id = ANY($1::text[]) AND lane <> \(PostgresMigrations.leasedLane)
                            RETURNING id, attempts)
                        UPDATE push_jobs j SET state = 'skipped', rule = $2, finished_at = $3, lease_until = NULL, attempts = g.attempts
                        FROM gone g WHERE j.id = g.id
                        """,
                        [.textArray(skip), .text(decided.skipRule), .date(now)])
                }
                let rewrite = decided.rewrite.filter { waiting.contains($0.key) }.sorted { $0.key < $1.key }
                if !rewrite.isEmpty {
                    try connection.query(
                        "UPDATE push_jobs j SET payload = u.payload FROM unnest($1::text[], $2::bytea[]) AS u(id, payload) WHERE j.id = u.id",
                        [.textArray(rewrite.map(\.key)), .byteaArray(rewrite.map(\.value))])
                }
                try insert(decided.jobs, webhooks: [], into: connection)
                try Self.insert(decided.changes, into: connection)
                try connection.query(
                    "UPDATE idempotency SET response = $3 WHERE app_id = $1 AND key = $2",
                    [.text(appId), .text(idempotencyKey), .bytea(decided.response)])
                return .accepted(response: decided.response)
            }
        }
    }

    public func revokedPushTokens(appId: String, uids: [String]) throws -> [RevokedPushToken] {
        guard !uids.isEmpty else { return [] }
        return try withConnection { connection in
            try connection.query(
                """
                SELECT app_id, uid, token, platform, provider_id, environment, revoked_at FROM revoked_push_tokens
                WHERE app_id = $1 AND uid = ANY($2::text[]) ORDER BY uid, revoked_at, token
                """,
                [.text(appId), .textArray(uids)]
            ).map {
                RevokedPushToken(
                    appId: $0.text(0), uid: $0.text(1), token: $0.text(2), platform: TokenPlatform(rawValue: $0.text(3)) ?? .apnsDevice,
                    providerId: $0.text(4), environment: $0.optionalText(5).flatMap(TokenEnvironment.init(rawValue:)),
                    revokedAt: $0.date(6))
            }
        }
    }

    /// Deletes changes recorded before `cutoff`, `batchSize` at a time (each batch one
    /// transaction under the feed's lock, so purges of several instances take turns), and
    /// remembers on each user the highest position of theirs that went.
    func purgeChanges(before cutoff: Date, batchSize: Int) throws -> Int {
        try Retention.inBatches(of: batchSize) { size in
            try withConnection { connection in
                try connection.transaction {
                    try connection.query("SELECT pg_advisory_xact_lock(\(Self.changesLock))")
                    return try connection.query(
                        """
                        WITH gone AS (
                            DELETE FROM push_changes WHERE seq = ANY(ARRAY(
                                SELECT seq FROM push_changes WHERE created_at < $1 ORDER BY seq LIMIT $2))
                            RETURNING app_id, uid, seq),
                        horizons AS (SELECT app_id, uid, MAX(seq) AS through FROM gone GROUP BY app_id, uid),
                        moved AS (
                            UPDATE users u SET changes_purged_through = GREATEST(COALESCE(u.changes_purged_through, 0), h.through)
                            FROM horizons h WHERE u.app_id = h.app_id AND u.uid = h.uid RETURNING 1)
                        SELECT (SELECT COUNT(*) FROM gone), (SELECT COUNT(*) FROM moved)
                        """,
                        [.date(cutoff), .limit(size)]
                    ).first { Int($0.int(0)) } ?? 0
                }
            }
        }
    }

    /// Inserts changes under the feed's lock (positions in commit order), leaving out those of
    /// users who no longer exist.
    static func insert(_ changes: [PushChange], into connection: PGConnection) throws {
        guard !changes.isEmpty else { return }
        try connection.query("SELECT pg_advisory_xact_lock(\(changesLock))")
        try connection.query(
            """
            INSERT INTO push_changes (seq, app_id, uid, kind, conversation_id, message_id, notification_id, title, body, unread_count,
                at, created_at)
            SELECT nextval('push_changes_seq'), c.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                    $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[])
                AS c(app_id, uid, kind, conversation_id, message_id, notification_id, title, body, unread_count, at, created_at)
            WHERE EXISTS (SELECT 1 FROM users WHERE users.app_id = c.app_id AND users.uid = c.uid)
            """,
            [
                .textArray(changes.map(\.appId)), .textArray(changes.map(\.uid)), .textArray(changes.map(\.kind.rawValue)),
                .textArray(changes.map(\.conversationId)), .textArray(changes.map(\.messageId)),
                .textArray(changes.map(\.notificationId)), .textArray(changes.map(\.title)), .textArray(changes.map(\.body)),
                .intArray(changes.map { $0.unreadCount.map(Int64.init) }), .dates(changes.map(\.at)), .dates(changes.map(\.createdAt)),
            ])
    }

    static func changeRow(_ row: PGRow) -> PushChangesPage.Entry {
        PushChangesPage.Entry(
            position: row.int(0),
            change: PushChange(
                appId: row.text(1), uid: row.text(2), kind: PushChange.Kind(rawValue: row.text(3)) ?? .read,
                conversationId: row.text(4), messageId: row.optionalText(5), notificationId: row.optionalText(6),
                title: row.optionalText(7), body: row.optionalText(8), unreadCount: row.isNull(9) ? nil : Int(row.int(9)),
                at: row.date(10), createdAt: row.date(11)))
    }
}
