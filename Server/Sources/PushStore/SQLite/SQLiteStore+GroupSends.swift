#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

// Group sends expanded in the background (issue 31). One connection behind a lock and
// `BEGIN IMMEDIATE`: each method is one step for every writer on the file, other processes on
// it included. A lease's holder is a store (`groupLeaseOwner`); one of a process that no longer
// runs is taken over at once (``ProcessIdentity``).
extension SQLiteStore {
    /// The columns of a ``GroupSend``, in ``groupSend(_:)``'s order.
    static let groupSendColumns =
        "id, app_id, guid, request, members, done, jobs, cursor, state, created_at, finished_at, last_error"

    /// A group send from its row.
    static func groupSend(_ row: SQLiteStatement) -> GroupSend {
        GroupSend(
            id: row.text(0), appId: row.text(1), guid: row.text(2), request: row.blob(3), members: Int(row.int(4)),
            done: Int(row.int(5)), jobs: Int(row.int(6)), cursor: row.optionalText(7),
            state: GroupSend.State(rawValue: row.text(8)) ?? .failed, createdAt: row.date(9),
            finishedAt: row.value(10) == .null ? nil : row.date(10), lastError: row.optionalText(11))
    }

    public func acceptGroupSend(
        _ send: GroupSend, sender: String?, idempotencyKey: String, requestHash: Data, now: Date, response: (Int) throws -> Data
    ) throws -> SendAcceptance {
        try withConnection { connection in
            try connection.transaction { () throws -> SendAcceptance in
                let seen = try connection.query(
                    "SELECT request_hash, response FROM idempotency WHERE app_id = ? AND key = ?",
                    [.text(send.appId), .text(idempotencyKey)]
                ) { ($0.blob(0), $0.blob(1)) }
                if let (hash, stored) = seen.first {
                    return hash == requestHash ? .replayed(response: stored) : .keyReused
                }
                guard try Self.groupExists(connection, appId: send.appId, guid: send.guid) else { throw StoreError.notFound }
                try connection.run(
                    """
                    INSERT INTO push_group_sends (id, app_id, guid, request, members, done, jobs, state, created_at)
                    VALUES (?, ?, ?, ?, 0, 0, 0, ?, ?)
                    """,
                    [
                        .text(send.id), .text(send.appId), .text(send.guid), .blob(send.request), .text(GroupSend.State.expanding.rawValue),
                        .date(send.createdAt),
                    ])
                // The members as they are now (a member added or removed later changes nothing).
                let members = try connection.run(
                    """
                    INSERT INTO push_group_send_members (send_id, uid)
                    SELECT ?, uid FROM push_group_members WHERE app_id = ? AND guid = ? AND uid <> ?
                    """,
                    [.text(send.id), .text(send.appId), .text(send.guid), .text(sender ?? "")])
                try connection.run(
                    "UPDATE push_group_sends SET members = ?, state = ?, finished_at = ? WHERE id = ?",
                    [
                        .int(Int64(members)), .text((members == 0 ? GroupSend.State.done : .expanding).rawValue),
                        members == 0 ? .date(now) : .null, .text(send.id),
                    ])
                let answer = try response(members)
                try connection.run(
                    "INSERT INTO idempotency (app_id, key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)",
                    [.text(send.appId), .text(idempotencyKey), .blob(requestHash), .blob(answer), .date(now)])
                return .accepted(response: answer)
            }
        }
    }

    public func claimGroupSend(lease: TimeInterval, now: Date) throws -> GroupSend? {
        let owner = groupLeaseOwner
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded())
        return try withConnection { connection in
            try connection.transaction { () throws -> GroupSend? in
                let candidates = try connection.query(
                    """
                    SELECT id, lease_owner, COALESCE(lease_until, 0) FROM push_group_sends
                    WHERE state = 'expanding' ORDER BY created_at LIMIT 64
                    """
                ) { ($0.text(0), $0.optionalText(1), $0.int(2)) }
                guard
                    let (id, _, _) = candidates.first(where: { _, holder, until in
                        guard let holder, holder != owner else { return true }
                        return until <= nowMs || !Self.holderRuns(holder)
                    })
                else { return nil }
                return try connection.query(
                    "UPDATE push_group_sends SET lease_owner = ?, lease_until = ? WHERE id = ? RETURNING \(Self.groupSendColumns)",
                    [.text(owner), .date(now.addingTimeInterval(lease)), .text(id)], Self.groupSend
                ).first
            }
        }
    }

    /// Whether the process of a lease holder (`<process identity>#<random>`) still runs.
    static func holderRuns(_ holder: String) -> Bool {
        ProcessIdentity.isRunning(String(holder.split(separator: "#", maxSplits: 1).first ?? ""))
    }

    public func groupSendMembers(id: String, after: String?, limit: Int) throws -> [String] {
        try withConnection {
            try $0.query(
                "SELECT uid FROM push_group_send_members WHERE send_id = ? AND uid > ? ORDER BY uid LIMIT ?",
                [.text(id), .text(after ?? ""), .int(Int64(max(limit, 1)))]
            ) { $0.text(0) }
        }
    }

    public func commitGroupSendBatch(
        _ batch: GroupSendBatch, lease: TimeInterval, now: Date, build: ([String: Int]) throws -> [PushJob]
    ) throws -> Bool {
        let stored = try withConnection { connection in
            try connection.transaction { () throws -> [PushJob]? in
                // Still ours, and still where the batch was read: else another store has it.
                let held = try connection.run(
                    """
                    UPDATE push_group_sends SET lease_until = ?
                    WHERE id = ? AND state = 'expanding' AND lease_owner = ? AND cursor IS ?
                    """,
                    [.date(now.addingTimeInterval(lease)), .text(batch.id), .text(groupLeaseOwner), .optionalText(batch.after)])
                guard held > 0 else { return nil }
                var totals: [String: Int] = [:]
                if !batch.unread.isEmpty || !batch.totalsOf.isEmpty {
                    totals = try Self.countUnread(
                        connection, appId: batch.appId, messages: batch.unread, totalsOf: batch.totalsOf, now: now
                    )
                    .totals
                }
                let jobs = try build(totals)
                try Self.insert(jobs, into: connection)
                let cursor = batch.uids.last ?? batch.after
                let more =
                    try connection.query(
                        "SELECT 1 FROM push_group_send_members WHERE send_id = ? AND uid > ? LIMIT 1",
                        [.text(batch.id), .text(cursor ?? "")]
                    ) { $0.int(0) }.first != nil
                try connection.run(
                    """
                    UPDATE push_group_sends SET cursor = ?, done = done + ?, jobs = jobs + ?, state = ?, finished_at = ?,
                        lease_owner = CASE WHEN ? THEN lease_owner END, lease_until = CASE WHEN ? THEN lease_until END
                    WHERE id = ?
                    """,
                    [
                        .optionalText(cursor), .int(Int64(batch.uids.count)), .int(Int64(jobs.count { !$0.skipped })),
                        .text((more ? GroupSend.State.expanding : .done).rawValue), more ? .null : .date(now), .int(more ? 1 : 0),
                        .int(more ? 1 : 0), .text(batch.id),
                    ])
                return jobs
            }
        }
        guard let stored else { return false }
        reportAdded(stored, webhooks: [])
        return true
    }

    public func failGroupSend(id: String, reason: String, now: Date) throws {
        try withConnection {
            try $0.run(
                """
                UPDATE push_group_sends SET state = ?, last_error = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL
                WHERE id = ? AND state = ?
                """,
                [
                    .text(GroupSend.State.failed.rawValue), .text(reason), .date(now), .text(id),
                    .text(GroupSend.State.expanding.rawValue),
                ])
        }
    }

    public func groupSend(appId: String, id: String) throws -> GroupSend? {
        try withConnection {
            try $0.query(
                "SELECT \(Self.groupSendColumns) FROM push_group_sends WHERE id = ? AND app_id = ?", [.text(id), .text(appId)],
                Self.groupSend
            ).first
        }
    }

    /// The retention purge of group sends whose expansion ended before `cutoff`: their members
    /// first, `batchSize` rows per statement, then the sends; returns the sends deleted.
    func purgeGroupSends(before cutoff: Date, batchSize: Int) throws -> Int {
        _ = try Retention.inBatches(of: batchSize) { size in
            try withConnection {
                try $0.run(
                    """
                    DELETE FROM push_group_send_members WHERE rowid IN (
                        SELECT m.rowid FROM push_group_sends s INDEXED BY push_group_sends_finished
                        JOIN push_group_send_members m ON m.send_id = s.id WHERE s.finished_at < ? LIMIT ?)
                    """,
                    [.date(cutoff), .int(Int64(size))])
            }
        }
        return try Retention.inBatches(of: batchSize) { size in
            try withConnection {
                try $0.run(
                    """
                    DELETE FROM push_group_sends WHERE rowid IN (
                        SELECT rowid FROM push_group_sends INDEXED BY push_group_sends_finished WHERE finished_at < ? LIMIT ?)
                    """,
                    [.date(cutoff), .int(Int64(size))])
            }
        }
    }
}
