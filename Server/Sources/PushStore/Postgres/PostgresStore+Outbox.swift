#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

// The push outbox: sends, claims and outcomes (webhooks and calls: PostgresStore+Webhooks.swift;
// the delivery log and what delivered: PostgresStore+DeliveryLog.swift). Job states are literals in the SQL
// (not parameters) so that the planner can use the partial indexes on pending and leased jobs.
//
// Push jobs still to do have a row in the narrow `push_queue` besides their `push_jobs` row:
// its lane (due calls, other due jobs, leased jobs), when it is due (`due`: the job's
// `not_before` while it waits, its lease's end while leased), its attempts and its lease's
// owner. A claim rewrites only queue rows; a finish deletes the queue row and writes the job's
// outcome (and attempts) into its row once. While a job is in the queue its `push_jobs` row
// says `pending` with no lease: readers take the state, attempts and lease from the queue
// (the `push_job_rows` view).
extension PostgresStore {
    /// Rows per multi-row `INSERT` (arrays unnested): a 20,000-job send is four statements.
    static let insertChunk = 5_000

    public func acceptSend(
        appId: String, idempotencyKey: String, requestHash: Data, jobs: SendJobs, webhooks: [WebhookJob], call: CallRecord?,
        response: () throws -> Data, now: Date
    ) throws -> SendAcceptance {
        try withConnection { connection in
            try connection.transaction {
                // The key first: a concurrent send with the same key waits here until the other
                // commits (then this one replays it) or rolls back (then this one goes on). The
                // answer is written once the jobs are made (below), in the same transaction, so
                // no other send ever reads the empty one.
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
                // Before the jobs (a decline may come as soon as they are claimed), committed with them.
                if let call { try Self.insert(call, into: connection) }
                let toSend = try jobs.forEachChunk(of: Self.insertChunk) { try insertPushJobs($0, into: connection) }
                try insert(webhooks, into: connection)
                if toSend || !webhooks.isEmpty { connection.notifyAtCommit(notifyJobs) }
                let answer = try response()
                try connection.query(
                    "UPDATE idempotency SET response = $3 WHERE app_id = $1 AND key = $2",
                    [.text(appId), .text(idempotencyKey), .bytea(answer)])
                return .accepted(response: answer)
            }
        }
    }

    public func enqueue(webhooks: [WebhookJob], pushJobs: [PushJob]) throws {
        guard !webhooks.isEmpty || !pushJobs.isEmpty else { return }
        try withConnection { connection in
            try connection.transaction {
                try insert(pushJobs, webhooks: webhooks, into: connection)
            }
        }
    }

    /// Inserts jobs (a few statements however many) and has the commit notify the listeners.
    func insert(_ jobs: [PushJob], webhooks: [WebhookJob], into connection: PGConnection) throws {
        try insert(webhooks, into: connection)
        for start in stride(from: 0, to: jobs.count, by: Self.insertChunk) {
            try insertPushJobs(jobs[start..<min(start + Self.insertChunk, jobs.count)], into: connection)
        }
        if jobs.contains(where: { !$0.skipped }) || !webhooks.isEmpty { connection.notifyAtCommit(notifyJobs) }
    }

    /// Inserts webhook jobs, ``insertChunk`` per statement.
    private func insert(_ webhooks: [WebhookJob], into connection: PGConnection) throws {
        for start in stride(from: 0, to: webhooks.count, by: Self.insertChunk) {
            let chunk = webhooks[start..<min(start + Self.insertChunk, webhooks.count)]
            try connection.query(
                """
                INSERT INTO webhook_jobs (id, app_id, event, body, state, attempts, not_before, created_at)
                SELECT id, app_id, event, body, 'pending', attempts, not_before, created_at
                FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::bigint[], $6::bigint[], $7::bigint[])
                    AS u(id, app_id, event, body, attempts, not_before, created_at)
                """,
                [
                    .textArray(chunk.map(\.id)), .textArray(chunk.map(\.appId)), .textArray(chunk.map(\.event)),
                    .byteaArray(chunk.map(\.body)), .intArray(chunk.map { Int64($0.attempts) }), .dates(chunk.map(\.notBefore)),
                    .dates(chunk.map(\.createdAt)),
                ])
        }
    }

    /// Inserts push jobs (at most ``insertChunk``) in one statement: the job rows and the queue
    /// rows of those not skipped.
    private func insertPushJobs(_ chunk: ArraySlice<PushJob>, into connection: PGConnection) throws {
        try connection.query(
            """
            WITH u AS MATERIALIZED (
                SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                    $8::text[], $9::bytea[], $10::text[], $11::bigint[], $12::bigint[], $13::text[], $14::text[], $15::bigint[],
                    $16::bigint[], $17::bigint[], $18::text[], $19::text[], $20::bigint[], $21::bytea[], $22::text[],
                    $23::text[], $24::text[])
                    AS u(id, app_id, request_id, uid, token, platform, kind, provider_id, payload, push_type, priority,
                        expiration, collapse_id, topic_suffix, attempts, not_before, created_at, environment, rule, skipped,
                        private_plaintext, trimmed, interruption_level, level_reason)),
            jobs AS (
            INSERT INTO push_jobs (id, app_id, request_id, uid, token, platform, kind, provider_id, payload, push_type,
                priority, expiration, collapse_id, topic_suffix, state, attempts, not_before, created_at, environment, rule,
                finished_at, private_plaintext, trimmed, interruption_level, level_reason)
            SELECT id, app_id, request_id, uid, token, platform, kind, provider_id, payload, push_type,
                priority, expiration, collapse_id, topic_suffix, CASE WHEN skipped = 1 THEN 'skipped' ELSE 'pending' END,
                attempts, not_before, created_at, environment, rule, CASE WHEN skipped = 1 THEN created_at END,
                private_plaintext, trimmed, interruption_level, level_reason
            FROM u)
            INSERT INTO push_queue (id, lane, due, not_before, attempts)
            SELECT id, CASE WHEN kind = 'call' THEN \(PostgresMigrations.callLane) ELSE \(PostgresMigrations.otherLane) END,
                not_before, not_before, attempts
            FROM u WHERE skipped = 0
            """,
            [
                .textArray(chunk.map(\.id)), .textArray(chunk.map(\.appId)), .textArray(chunk.map(\.requestId)),
                .textArray(chunk.map(\.uid)), .textArray(chunk.map(\.token)), .textArray(chunk.map(\.platform.rawValue)),
                .textArray(chunk.map(\.kind.rawValue)), .textArray(chunk.map(\.providerId)), .byteaArray(chunk.map(\.payload)),
                .textArray(chunk.map(\.headers.pushType.rawValue)), .intArray(chunk.map { Int64($0.headers.priority) }),
                .intArray(chunk.map(\.headers.expiration)), .textArray(chunk.map(\.headers.collapseId)),
                .textArray(chunk.map(\.headers.topicSuffix)), .intArray(chunk.map { Int64($0.attempts) }),
                .dates(chunk.map(\.notBefore)), .dates(chunk.map(\.createdAt)), .textArray(chunk.map(\.environment?.rawValue)),
                .textArray(chunk.map(\.rule)), .intArray(chunk.map { $0.skipped ? 1 : 0 }),
                .byteaArray(chunk.map(PrivatePushColumns.plaintext)), .textArray(chunk.map(PrivatePushColumns.trimmed)),
                .textArray(chunk.map(\.interruptionLevel)), .textArray(chunk.map(\.levelReason)),
            ])
    }

    /// Claims due jobs in one statement: call pushes first (they jump the queue), then the
    /// oldest due jobs, then jobs whose lease ran out, each step taking what the previous
    /// left of `limit`. `FOR UPDATE SKIP LOCKED` passes over queue rows another instance is
    /// claiming, so two instances never lease the same job. Only the queue rows are written
    /// (lane, due, owner, attempts); the job rows are read.
    public func claimPushJobs(limit: Int, lease: TimeInterval, now: Date, excluding excluded: Set<ProviderRef>) throws -> [PushJob] {
        guard limit > 0 else { return [] }
        // Without exclusions (nearly always) the queue alone is read; with them each queue row
        // is checked against its job's provider.
        let skipped = excluded.sorted { ($0.appId, $0.providerId) < ($1.appId, $1.providerId) }
        let exclusion =
            skipped.isEmpty
            ? ""
            : """
             AND NOT EXISTS (SELECT 1 FROM push_jobs j WHERE j.id = push_queue.id
                AND (j.app_id, j.provider_id) IN (SELECT * FROM unnest($5::text[], $6::text[])))
            """
        var values: [PGValue] = [.date(now), .int(Int64(limit)), .date(now.addingTimeInterval(lease)), .text(leaseOwner)]
        if !skipped.isEmpty { values += [.textArray(skipped.map(\.appId)), .textArray(skipped.map(\.providerId))] }
        let jobs = try withConnection { connection in
            try connection.query(
                """
                WITH calls AS MATERIALIZED (
                    SELECT id FROM push_queue WHERE lane = \(PostgresMigrations.callLane) AND due <= $1\(exclusion)
                    ORDER BY due LIMIT $2 FOR UPDATE SKIP LOCKED),
                due AS MATERIALIZED (
                    SELECT id FROM push_queue WHERE lane = \(PostgresMigrations.otherLane) AND due <= $1\(exclusion)
                    ORDER BY due LIMIT GREATEST($2 - (SELECT count(*) FROM calls), 0) FOR UPDATE SKIP LOCKED),
                expired AS MATERIALIZED (
                    SELECT id FROM push_queue WHERE lane = \(PostgresMigrations.leasedLane) AND due <= $1\(exclusion)
                    ORDER BY not_before LIMIT GREATEST($2 - (SELECT count(*) FROM calls) - (SELECT count(*) FROM due), 0)
                    FOR UPDATE SKIP LOCKED),
                claimed AS (
                    UPDATE push_queue SET lane = \(PostgresMigrations.leasedLane), due = $3, lease_owner = $4, attempts = attempts + 1
                    WHERE id = ANY(ARRAY(SELECT id FROM calls UNION ALL SELECT id FROM due UNION ALL SELECT id FROM expired))
                    RETURNING id, attempts)
                SELECT \(Self.jobColumnList(attempts: "c.attempts", prefix: "j.")) FROM claimed c JOIN push_jobs j ON j.id = c.id
                """,
                values
            ).map(PushJob.init(row:))
        }
        return jobs.sorted { ($0.kind == .call ? 0 : 1, $0.notBefore) < ($1.kind == .call ? 0 : 1, $1.notBefore) }
    }

    public func finishPushJob(id: String, outcome: JobOutcome, now: Date) throws {
        try finishPushJobs([(id, outcome)], now: now)
    }

    /// Records many outcomes, as ``OutcomeRows`` says: every delivered job (nearly all of them)
    /// with one statement, the others one statement each (one transaction when there are
    /// several).
    public func finishPushJobs(_ results: [(id: String, outcome: JobOutcome)], now: Date) throws {
        guard !results.isEmpty else { return }
        let batch = OutcomeBatch(results)
        try withConnection { connection in
            let work = {
                if !batch.delivered.isEmpty {
                    try Self.end(ids: batch.delivered, state: JobState.delivered, now: now, reason: nil, on: connection)
                }
                for (id, rows) in batch.others {
                    try Self.apply(rows, toJob: id, now: now, on: connection)
                }
            }
            // One statement needs no transaction of its own.
            let others = batch.others
            if others.isEmpty || (batch.delivered.isEmpty && others.count == 1 && !others[0].rows.deletesToken) {
                try work()
            } else {
                try connection.transaction(work)
            }
        }
    }

    /// Ends jobs in one statement: deletes their queue rows and writes the outcome, with the
    /// attempts the queue counted and the last lease's owner, into their job rows (every job named, queued or not, as a
    /// finish always did). `state` (a ``JobState``) goes into the SQL as a literal, for the planner.
    private static func end(ids: [String], state: String, now: Date, reason: String?, on connection: PGConnection) throws {
        try connection.query(
            """
            WITH done AS (DELETE FROM push_queue WHERE id = ANY($1) RETURNING id, attempts, lease_owner)
            UPDATE push_jobs j SET state = '\(state)', lease_until = NULL, finished_at = $2, last_error = $3,
                attempts = COALESCE(d.attempts, j.attempts),
                lease_owner = CASE WHEN d.id IS NULL THEN j.lease_owner ELSE d.lease_owner END
            FROM unnest($1::text[]) AS u(id) LEFT JOIN done d ON d.id = u.id
            WHERE j.id = u.id
            """,
            [.textArray(ids), .date(now), .text(reason)])
    }

    /// Carries out one job's ``OutcomeRows``.
    private static func apply(_ rows: OutcomeRows, toJob id: String, now: Date, on connection: PGConnection) throws {
        switch rows.job {
        case .finish(let state, let reason):
            try end(ids: [id], state: state, now: now, reason: reason, on: connection)
        case .retry(let notBefore, let reason):
            // Back in its lane at its new time (a job no longer queued is queued again, as a
            // retry always made the job pending).
            try connection.query(
                """
                WITH job AS (
                    UPDATE push_jobs SET state = 'pending', lease_until = NULL, not_before = $1, last_error = $2
                    WHERE id = $3 RETURNING id, kind, attempts, lease_owner)
                INSERT INTO push_queue (id, lane, due, not_before, attempts, lease_owner)
                SELECT id, CASE WHEN kind = 'call' THEN \(PostgresMigrations.callLane) ELSE \(PostgresMigrations.otherLane) END,
                    $1, $1, attempts, lease_owner FROM job
                ON CONFLICT (id) DO UPDATE SET lane = excluded.lane, due = excluded.due, not_before = excluded.not_before
                """,
                [.date(notBefore), .text(reason), .text(id)])
        }
        if rows.deletesToken {
            try connection.query(
                "DELETE FROM push_tokens WHERE (app_id, token) IN (SELECT app_id, token FROM push_jobs WHERE id = $1)", [.text(id)])
        }
    }

    /// Jobs by state: the finished ones from `push_jobs`, the pending and leased ones from the
    /// queue.
    public func pushJobCounts() throws -> OutboxCounts {
        let rows = try withConnection {
            try $0.query(
                """
                SELECT state, COUNT(*) FROM push_jobs WHERE state <> 'pending' GROUP BY state
                UNION ALL
                SELECT CASE WHEN lane = \(PostgresMigrations.leasedLane) THEN 'leased' ELSE 'pending' END, COUNT(*)
                FROM push_queue GROUP BY 1
                """
            ).map { ($0.text(0), Int($0.int(1))) }
        }
        return OutboxCounts(byState: rows)
    }

    /// Pending and leased jobs, counted in the queue: finished jobs (kept for `--retention-days`,
    /// so there are many) are not read.
    public func activePushJobCounts() throws -> OutboxCounts {
        let counts = try withConnection {
            try $0.query(
                """
                SELECT COUNT(*) FILTER (WHERE lane <> \(PostgresMigrations.leasedLane)),
                    COUNT(*) FILTER (WHERE lane = \(PostgresMigrations.leasedLane))
                FROM push_queue
                """
            ).first { (Int($0.int(0)), Int($0.int(1))) }
        }
        return OutboxCounts(pending: counts?.0 ?? 0, inFlight: counts?.1 ?? 0, delivered: 0, failed: 0)
    }

    /// Makes the jobs of a provider that were waiting for it to be fixed (recorded with a
    /// "provider misconfigured" reason) due now; returns how many. (`ILIKE`, as SQLite's
    /// `LIKE` ignores ASCII case.) Only waiting jobs (not leased ones) are found, through the
    /// queue; their queue rows are locked first, so a claim cannot lease one in between.
    public func releaseWaitingJobs(appId: String, providerId: String, now: Date) throws -> Int {
        try withConnection {
            // Every instance's engine may hold some of them: wake them all.
            try $0.query(
                """
                WITH waiting AS MATERIALIZED (
                    SELECT q.id FROM push_queue q JOIN push_jobs j ON j.id = q.id
                    WHERE q.lane <> \(PostgresMigrations.leasedLane) AND j.app_id = $2 AND j.provider_id = $3 AND j.last_error ILIKE $4
                    FOR UPDATE OF q),
                queued AS (
                    UPDATE push_queue SET due = $1, not_before = $1 WHERE id IN (SELECT id FROM waiting) RETURNING id),
                released AS (
                    UPDATE push_jobs SET not_before = $1 WHERE id IN (SELECT id FROM queued) RETURNING 1),
                counted AS (SELECT COUNT(*) AS released FROM released)
                SELECT released, (SELECT pg_notify($5, '') WHERE released > 0) FROM counted
                """,
                [.date(now), .text(appId), .text(providerId), .text(JobOutcome.waitingPrefix + "%"), .text(jobsChannel)]
            ).first { Int($0.int(0)) } ?? 0
        }
    }

    /// Makes the push and webhook jobs leased by stores that are gone claimable at once (and
    /// wakes the instances); returns how many.
    ///
    /// Instances may run on different hosts, so a process id says nothing here. Instead every
    /// store holds, on its listener session, a session-level advisory lock keyed by a hash of
    /// its lease owner id for as long as it is open. When its process dies (even `kill -9`),
    /// PostgreSQL ends the session and the lock is free. So for each other owner with leased
    /// jobs, this tries the owner's lock (`pg_try_advisory_xact_lock`, released with this
    /// statement): taken means the owner is gone and its jobs are released; refused means it
    /// lives and its leases are left to run out. A store whose listener lost its connection
    /// counts as gone until it reconnects (its jobs may then be sent twice: delivery is at
    /// least once); a hash collision with a live owner only leaves leases to expire.
    public func releaseAbandonedLeases(now: Date) throws -> Int {
        try withConnection {
            try $0.query(
                """
                WITH owners AS MATERIALIZED (
                    SELECT lease_owner FROM push_queue
                    WHERE lane = \(PostgresMigrations.leasedLane) AND lease_owner IS NOT NULL AND lease_owner <> $1
                    UNION
                    SELECT lease_owner FROM webhook_jobs WHERE state = 'leased' AND lease_owner IS NOT NULL AND lease_owner <> $1),
                gone AS MATERIALIZED (
                    SELECT lease_owner FROM owners WHERE pg_try_advisory_xact_lock(\(Self.ownerLockKey("lease_owner")))),
                pushes AS (
                    UPDATE push_queue q
                    SET lane = CASE WHEN j.kind = 'call' THEN \(PostgresMigrations.callLane) ELSE \(PostgresMigrations.otherLane) END,
                        due = LEAST(q.not_before, $2), not_before = LEAST(q.not_before, $2), lease_owner = NULL
                    FROM push_jobs j
                    WHERE j.id = q.id AND q.lane = \(PostgresMigrations.leasedLane) AND q.lease_owner IN (SELECT lease_owner FROM gone)
                    RETURNING q.id, q.not_before),
                -- The job rows' not_before as the queue's (only one due later than now changes).
                jobs AS (
                    UPDATE push_jobs j SET not_before = p.not_before FROM pushes p WHERE j.id = p.id AND j.not_before > p.not_before),
                hooks AS (
                    UPDATE webhook_jobs SET state = 'pending', lease_until = NULL, lease_owner = NULL, not_before = LEAST(not_before, $2)
                    WHERE state = 'leased' AND lease_owner IN (SELECT lease_owner FROM gone) RETURNING 1),
                counted AS (SELECT (SELECT COUNT(*) FROM pushes) + (SELECT COUNT(*) FROM hooks) AS released)
                SELECT released, (SELECT pg_notify($3, '') WHERE released > 0) FROM counted
                """,
                [.text(leaseOwner), .date(now), .text(jobsChannel)]
            ).first { Int($0.int(0)) } ?? 0
        }
    }

    /// Every push job of one send request, oldest first (for the admin API and tests).
    public func pushJobs(requestId: String) throws -> [PushJob] {
        try withConnection {
            try $0.query(
                "SELECT \(Self.jobColumnList()) FROM push_job_rows WHERE request_id = $1 ORDER BY created_at, id", [.text(requestId)]
            )
            .map(PushJob.init(row:))
        }
    }

    /// The columns `PushJob(row:)` reads, each with `prefix` (a table alias), attempts from
    /// `attempts`.
    static func jobColumnList(attempts: String = "attempts", prefix: String = "") -> String {
        let before = [
            "id", "app_id", "request_id", "uid", "token", "platform", "kind", "provider_id", "payload", "push_type",
            "priority", "expiration", "collapse_id", "topic_suffix",
        ]
        let after = [
            "not_before", "created_at", "environment", "rule", "state", "private_plaintext", "trimmed", "interruption_level",
            "level_reason",
        ]
        return (before.map { prefix + $0 } + [attempts] + after.map { prefix + $0 }).joined(separator: ", ")
    }

}
