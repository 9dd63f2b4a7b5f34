#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

// Edits and deletions of messages, and the users' changes feeds (schema 12). One connection
// behind a lock: a transaction here sees and changes the jobs with nothing in between, so a job
// found pending is still pending when it is skipped or rewritten.
extension SQLiteStore {
    public func record(changes: [PushChange], pushJobs: [PushJob]) throws {
        guard !changes.isEmpty || !pushJobs.isEmpty else { return }
        try withConnection { connection in
            try connection.transaction {
                try Self.insert(pushJobs, into: connection)
                try Self.insert(changes, into: connection)
            }
        }
        reportAdded(pushJobs, webhooks: [])
    }

    public func changes(appId: String, uid: String, after: Int64, limit: Int) throws -> PushChangesPage {
        let size = max(1, limit)
        return try withConnection { connection in
            let rows = try connection.query(
                """
                SELECT seq, app_id, uid, kind, conversation_id, message_id, notification_id, title, body, unread_count, at, created_at
                FROM push_changes WHERE app_id = ? AND uid = ? AND seq > ? ORDER BY seq LIMIT ?
                """,
                [.text(appId), .text(uid), .int(after), .int(Int64(size + 1))], Self.changeRow)
            let purged =
                try connection.query(
                    "SELECT COALESCE(changes_purged_through, 0) FROM users WHERE app_id = ? AND uid = ?", [.text(appId), .text(uid)]
                ) { $0.int(0) }.first ?? 0
            return PushChangesPage(
                entries: Array(rows.prefix(size)), hasMore: rows.count > size, purgedThrough: purged,
                latest: try Self.latestChangePosition(connection))
        }
    }

    public func latestChangePosition() throws -> Int64 {
        try withConnection { try Self.latestChangePosition($0) }
    }

    /// The highest position AUTOINCREMENT gave (never reused, even when its row was purged).
    private static func latestChangePosition(_ connection: SQLiteConnection) throws -> Int64 {
        try connection.query("SELECT seq FROM sqlite_sequence WHERE name = 'push_changes'") { $0.int(0) }.first ?? 0
    }

    public func acceptMessageAction(
        appId: String, idempotencyKey: String, requestHash: Data, collapseIds: [String], now: Date,
        plan: ([MessageJob]) throws -> MessageActionPlan
    ) throws -> SendAcceptance {
        let (acceptance, added) = try withConnection { connection in
            try connection.transaction { () throws -> (SendAcceptance, [PushJob]) in
                let seen = try connection.query(
                    "SELECT request_hash, response FROM idempotency WHERE app_id = ? AND key = ?", [.text(appId), .text(idempotencyKey)]
                ) { ($0.blob(0), $0.blob(1)) }
                if let (hash, stored) = seen.first {
                    return (hash == requestHash ? .replayed(response: stored) : .keyReused, [])
                }
                // `kind = 'chat'` as a literal: the partial index `push_jobs_message` is for it.
                let ids = Array(repeating: "?", count: collapseIds.count).joined(separator: ", ")
                let found = try connection.query(
                    Self.jobColumns
                        + " WHERE app_id = ? AND kind = 'chat' AND collapse_id IN (\(ids)) AND state <> ? ORDER BY created_at, id",
                    [.text(appId)] + collapseIds.map { .text($0) } + [.text(JobState.skipped)]
                ) { MessageJob(job: PushJob(row: $0), pending: $0.text(19) == JobState.pending) }
                let decided = try plan(found)
                for id in decided.skip {
                    try connection.run(
                        "UPDATE push_jobs SET state = ?, rule = ?, finished_at = ?, lease_until = NULL WHERE id = ? AND state = ?",
                        [.text(JobState.skipped), .text(decided.skipRule), .date(now), .text(id), .text(JobState.pending)])
                }
                for (id, payload) in decided.rewrite {
                    try connection.run(
                        "UPDATE push_jobs SET payload = ? WHERE id = ? AND state = ?", [.blob(payload), .text(id), .text(JobState.pending)])
                }
                try Self.insert(decided.jobs, into: connection)
                try Self.insert(decided.changes, into: connection)
                try connection.run(
                    "INSERT INTO idempotency (app_id, key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)",
                    [.text(appId), .text(idempotencyKey), .blob(requestHash), .blob(decided.response), .date(now)])
                return (.accepted(response: decided.response), decided.jobs)
            }
        }
        reportAdded(added, webhooks: [])
        return acceptance
    }

    public func revokedPushTokens(appId: String, uids: [String]) throws -> [RevokedPushToken] {
        var found: [RevokedPushToken] = []
        for start in stride(from: 0, to: uids.count, by: 500) {
            let chunk = uids[start..<min(start + 500, uids.count)]
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            found += try withConnection {
                try $0.query(
                    """
                    SELECT app_id, uid, token, platform, provider_id, environment, revoked_at FROM revoked_push_tokens
                    WHERE app_id = ? AND uid IN (\(placeholders)) ORDER BY uid, revoked_at, token
                    """,
                    [.text(appId)] + chunk.map { .text($0) }
                ) {
                    RevokedPushToken(
                        appId: $0.text(0), uid: $0.text(1), token: $0.text(2),
                        platform: TokenPlatform(rawValue: $0.text(3)) ?? .apnsDevice, providerId: $0.text(4),
                        environment: $0.optionalText(5).flatMap(TokenEnvironment.init(rawValue:)), revokedAt: $0.date(6))
                }
            }
        }
        return found
    }

    /// Deletes changes recorded before `cutoff`, `batchSize` at a time (each batch one
    /// transaction), and remembers on each user the highest position of theirs that went.
    func purgeChanges(before cutoff: Date, batchSize: Int) throws -> Int {
        try Retention.inBatches(of: batchSize) { size in
            try withConnection { connection in
                try connection.transaction {
                    let gone = try connection.query(
                        """
                        DELETE FROM push_changes WHERE seq IN
                            (SELECT seq FROM push_changes INDEXED BY push_changes_created WHERE created_at < ? LIMIT ?)
                        RETURNING app_id, uid, seq
                        """,
                        [.date(cutoff), .int(Int64(size))]
                    ) { (appId: $0.text(0), uid: $0.text(1), seq: $0.int(2)) }
                    var through: [[String]: Int64] = [:]
                    for row in gone { through[[row.appId, row.uid]] = max(through[[row.appId, row.uid]] ?? 0, row.seq) }
                    for (user, seq) in through {
                        try connection.run(
                            "UPDATE users SET changes_purged_through = MAX(COALESCE(changes_purged_through, 0), ?) WHERE app_id = ? AND uid = ?",
                            [.int(seq), .text(user[0]), .text(user[1])])
                    }
                    return gone.count
                }
            }
        }
    }

    /// Inserts changes, leaving out those of users who no longer exist.
    static func insert(_ changes: [PushChange], into connection: SQLiteConnection) throws {
        for change in changes {
            try connection.run(
                """
                INSERT INTO push_changes (app_id, uid, kind, conversation_id, message_id, notification_id, title, body, unread_count,
                    at, created_at)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11 WHERE EXISTS (SELECT 1 FROM users WHERE app_id = ?1 AND uid = ?2)
                """,
                [
                    .text(change.appId), .text(change.uid), .text(change.kind.rawValue), .text(change.conversationId),
                    .optionalText(change.messageId), .optionalText(change.notificationId), .optionalText(change.title),
                    .optionalText(change.body), change.unreadCount.map { .int(Int64($0)) } ?? .null, .date(change.at),
                    .date(change.createdAt),
                ])
        }
    }

    static func changeRow(_ row: SQLiteStatement) -> PushChangesPage.Entry {
        var unread: Int?
        if case .int(let value) = row.value(9) { unread = Int(value) }
        return PushChangesPage.Entry(
            position: row.int(0),
            change: PushChange(
                appId: row.text(1), uid: row.text(2), kind: PushChange.Kind(rawValue: row.text(3)) ?? .read,
                conversationId: row.text(4), messageId: row.optionalText(5), notificationId: row.optionalText(6),
                title: row.optionalText(7), body: row.optionalText(8), unreadCount: unread, at: row.date(10), createdAt: row.date(11)))
    }
}
