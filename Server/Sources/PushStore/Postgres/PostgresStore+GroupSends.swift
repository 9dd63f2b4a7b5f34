#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

// Group sends expanded in the background (issue 31): SQLiteStore's semantics for several
// instances. A send is leased to one store's `leaseOwner`; a claim passes over a send another
// live store holds (its advisory lock, as for the outbox's leases: ``releaseAbandonedLeases(now:)``)
// and over one being claimed or committed at that moment (`FOR UPDATE SKIP LOCKED`). A batch
// moves the cursor only where it was read (`cursor IS NOT DISTINCT FROM`): a store whose lease
// was taken over stores nothing.
extension PostgresStore {
    /// The columns of a ``GroupSend``, in ``groupSend(_:)``'s order.
    static let groupSendColumns = SQLiteStore.groupSendColumns

    /// A group send from its row.
    static func groupSend(_ row: PGRow) -> GroupSend {
        GroupSend(
            id: row.text(0), appId: row.text(1), guid: row.text(2), request: row.blob(3), members: Int(row.int(4)),
            done: Int(row.int(5)), jobs: Int(row.int(6)), cursor: row.optionalText(7),
            state: GroupSend.State(rawValue: row.text(8)) ?? .failed, createdAt: row.date(9), finishedAt: row.optionalDate(10),
            lastError: row.optionalText(11))
    }

    public func acceptGroupSend(
        _ send: GroupSend, sender: String?, idempotencyKey: String, requestHash: Data, now: Date, response: (Int) throws -> Data
    ) throws -> SendAcceptance {
        try withConnection { connection in
            try connection.transaction {
                // The key first, as acceptSend does: a concurrent send with the same key waits
                // here, then replays this one (its answer is written below, in this transaction).
                let inserted = try connection.query(
                    """
                    INSERT INTO idempotency (app_id, key, request_hash, response, created_at) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (app_id, key) DO NOTHING
                    """,
                    [.text(send.appId), .text(idempotencyKey), .bytea(requestHash), .bytea(Data()), .date(now)]
                ).affected
                if inserted == 0 {
                    let seen = try connection.query(
                        "SELECT request_hash, response FROM idempotency WHERE app_id = $1 AND key = $2",
                        [.text(send.appId), .text(idempotencyKey)]
                    ).first { ($0.blob(0), $0.blob(1)) }
                    guard let (hash, stored) = seen else { throw StoreError.conflict }
                    return hash == requestHash ? .replayed(response: stored) : .keyReused
                }
                let exists = try connection.query(
                    "SELECT 1 FROM push_groups WHERE app_id = $1 AND guid = $2", [.text(send.appId), .text(send.guid)]
                ).first { $0.int(0) }
                guard exists != nil else { throw StoreError.notFound }
                try connection.query(
                    """
                    INSERT INTO push_group_sends (id, app_id, guid, request, members, done, jobs, state, created_at)
                    VALUES ($1, $2, $3, $4, 0, 0, 0, 'expanding', $5)
                    """,
                    [.text(send.id), .text(send.appId), .text(send.guid), .bytea(send.request), .date(send.createdAt)])
                // The members as they are now: one statement, one snapshot of the group.
                let members = try connection.query(
                    """
                    INSERT INTO push_group_send_members (send_id, uid)
                    SELECT $1, uid FROM push_group_members WHERE app_id = $2 AND guid = $3 AND uid <> $4
                    """,
                    [.text(send.id), .text(send.appId), .text(send.guid), .text(sender ?? "")]
                ).affected
                try connection.query(
                    """
                    UPDATE push_group_sends SET members = $2, state = CASE WHEN $2 = 0 THEN 'done' ELSE 'expanding' END,
                        finished_at = CASE WHEN $2 = 0 THEN $3 END
                    WHERE id = $1
                    """,
                    [.text(send.id), .int(Int64(members)), .date(now)])
                let answer = try response(members)
                try connection.query(
                    "UPDATE idempotency SET response = $3 WHERE app_id = $1 AND key = $2",
                    [.text(send.appId), .text(idempotencyKey), .bytea(answer)])
                return .accepted(response: answer)
            }
        }
    }

    public func claimGroupSend(lease: TimeInterval, now: Date) throws -> GroupSend? {
        try withConnection {
            try $0.query(
                """
                UPDATE push_group_sends SET lease_owner = $1, lease_until = $3
                WHERE id = (
                    SELECT id FROM push_group_sends
                    WHERE state = 'expanding' AND (lease_owner IS NULL OR lease_owner = $1 OR lease_until <= $2
                        OR pg_try_advisory_xact_lock(\(Self.ownerLockKey("lease_owner"))))
                    ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING \(Self.groupSendColumns)
                """,
                [.text(leaseOwner), .date(now), .date(now.addingTimeInterval(lease))]
            ).first(Self.groupSend)
        }
    }

    public func groupSendMembers(id: String, after: String?, limit: Int) throws -> [String] {
        try withConnection {
            try $0.query(
                "SELECT uid FROM push_group_send_members WHERE send_id = $1 AND uid > $2 ORDER BY uid LIMIT $3",
                [.text(id), .text(after ?? ""), .limit(max(limit, 1))]
            ).map { $0.text(0) }
        }
    }

    public func commitGroupSendBatch(
        _ batch: GroupSendBatch, lease: TimeInterval, now: Date, build: ([String: Int]) throws -> [PushJob]
    ) throws -> Bool {
        try withConnection { connection in
            try connection.transaction {
                // Still ours, and still where the batch was read. A commit of the same send by
                // another store waits on the row here and then finds the cursor moved.
                let held = try connection.query(
                    """
                    UPDATE push_group_sends SET lease_until = $4
                    WHERE id = $1 AND state = 'expanding' AND lease_owner = $2 AND cursor IS NOT DISTINCT FROM $3
                    """,
                    [.text(batch.id), .text(leaseOwner), .text(batch.after), .date(now.addingTimeInterval(lease))]
                ).affected
                guard held > 0 else { return false }
                var totals: [String: Int] = [:]
                if !batch.unread.isEmpty || !batch.totalsOf.isEmpty {
                    totals = try Self.countUnread(
                        connection, appId: batch.appId, messages: batch.unread, totalsOf: batch.totalsOf, now: now)
                }
                let jobs = try build(totals)
                try insert(jobs, webhooks: [], into: connection)
                let cursor = batch.uids.last ?? batch.after
                let more =
                    try connection.query(
                        "SELECT 1 FROM push_group_send_members WHERE send_id = $1 AND uid > $2 LIMIT 1",
                        [.text(batch.id), .text(cursor ?? "")]
                    ).first { $0.int(0) } != nil
                try connection.query(
                    """
                    UPDATE push_group_sends SET cursor = $2, done = done + $3, jobs = jobs + $4,
                        state = CASE WHEN $5 THEN 'expanding' ELSE 'done' END, finished_at = CASE WHEN $5 THEN NULL ELSE $6 END,
                        lease_owner = CASE WHEN $5 THEN lease_owner END, lease_until = CASE WHEN $5 THEN lease_until END
                    WHERE id = $1
                    """,
                    [
                        .text(batch.id), .text(cursor), .int(Int64(batch.uids.count)), .int(Int64(jobs.count { !$0.skipped })),
                        .bool(more), .date(now),
                    ])
                return true
            }
        }
    }

    public func failGroupSend(id: String, reason: String, now: Date) throws {
        try withConnection {
            try $0.query(
                """
                UPDATE push_group_sends SET state = 'failed', last_error = $2, finished_at = $3, lease_owner = NULL, lease_until = NULL
                WHERE id = $1 AND state = 'expanding'
                """,
                [.text(id), .text(reason), .date(now)])
        }
    }

    public func groupSend(appId: String, id: String) throws -> GroupSend? {
        try withConnection {
            try $0.query(
                "SELECT \(Self.groupSendColumns) FROM push_group_sends WHERE id = $1 AND app_id = $2", [.text(id), .text(appId)]
            ).first(Self.groupSend)
        }
    }

    /// ``addUnreadCounting(appId:messages:totalsOf:now:)``'s totals inside the caller's
    /// transaction, in three statements whatever the number of users (a group send's batch):
    /// the users' advisory locks in uid order (as ``lockUnread(_:appId:uids:)`` takes them, one
    /// statement each), the messages, the totals.
    static func countUnread(
        _ connection: PGConnection, appId: String, messages: [UnreadMessage], totalsOf uids: [String], now: Date
    ) throws -> [String: Int] {
        let users = Set(uids + messages.map(\.uid)).sorted()
        try connection.query(
            """
            SELECT count(pg_advisory_xact_lock(hashtextextended(
                'push-server unread ' || current_schema() || ' ' || length($1) || ' ' || $1 || ' ' || u, 0)))
            FROM (SELECT u FROM unnest($2::text[]) WITH ORDINALITY AS t(u, n) ORDER BY n) AS ordered
            """,
            [.text(appId), .textArray(users)])
        if !messages.isEmpty {
            try connection.query(
                """
                INSERT INTO unread_messages (app_id, uid, conversation_id, message_id, created_at)
                SELECT $1, m.uid, m.conversation_id, m.message_id, $5
                FROM unnest($2::text[], $3::text[], $4::text[]) AS m(uid, conversation_id, message_id)
                WHERE EXISTS (SELECT 1 FROM users WHERE app_id = $1 AND uid = m.uid)
                ON CONFLICT (app_id, uid, conversation_id, message_id) DO NOTHING
                """,
                [
                    .text(appId), .textArray(messages.map(\.uid)), .textArray(messages.map(\.conversationId)),
                    .textArray(messages.map(\.messageId)), .date(now),
                ])
        }
        var totals: [String: Int] = [:]
        for row in try connection.query(
            """
            SELECT u, (SELECT COUNT(*) FROM unread_messages WHERE app_id = $1 AND uid = u AND read_at IS NULL)
            FROM unnest($2::text[]) AS t(u)
            """,
            [.text(appId), .textArray(users)]
        ).map({ ($0.text(0), Int($0.int(1))) }) {
            totals[row.0] = row.1
        }
        return totals
    }
}
