#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

extension SQLiteStore {
    public func acceptSend(
        appId: String, idempotencyKey: String, requestHash: Data, jobs: SendJobs, webhooks: [WebhookJob], call: CallRecord?,
        response: () throws -> Data, now: Date
    ) throws -> SendAcceptance {
        var toSend = false
        let acceptance = try withConnection { connection in
            try connection.transaction { () throws -> SendAcceptance in
                let seen = try connection.query(
                    "SELECT request_hash, response FROM idempotency WHERE app_id = ? AND key = ?", [.text(appId), .text(idempotencyKey)]
                ) { ($0.blob(0), $0.blob(1)) }
                if let (hash, stored) = seen.first {
                    return hash == requestHash ? .replayed(response: stored) : .keyReused
                }
                // Before the jobs (a decline may come as soon as they are claimed), committed with them.
                if let call { try Self.insert(call, into: connection) }
                toSend = try jobs.forEachChunk(of: Self.insertChunk) { try Self.insert($0, into: connection) }
                for webhook in webhooks {
                    try Self.insert(webhook, into: connection)
                }
                let answer = try response()
                try connection.run(
                    "INSERT INTO idempotency (app_id, key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)",
                    [.text(appId), .text(idempotencyKey), .blob(requestHash), .blob(answer), .date(now)])
                return .accepted(response: answer)
            }
        }
        if case .accepted = acceptance { reportAdded(toSend: toSend, webhooks: !webhooks.isEmpty) }
        return acceptance
    }

    public func enqueue(webhooks: [WebhookJob], pushJobs: [PushJob]) throws {
        try withConnection { connection in
            try connection.transaction {
                for webhook in webhooks {
                    try Self.insert(webhook, into: connection)
                }
                try Self.insert(pushJobs, into: connection)
            }
        }
        reportAdded(pushJobs, webhooks: webhooks)
    }

    /// Claims due jobs: call pushes first (they jump the queue), then the oldest due jobs,
    /// then jobs whose lease ran out; leases them all with one `UPDATE … RETURNING`.
    public func claimPushJobs(limit: Int, lease: TimeInterval, now: Date, excluding excluded: Set<ProviderRef>) throws -> [PushJob] {
        guard limit > 0 else { return [] }
        let skipped = excluded.sorted { ($0.appId, $0.providerId) < ($1.appId, $1.providerId) }
        let exclusion =
            skipped.isEmpty
            ? ""
            : " AND (app_id, provider_id) NOT IN (VALUES " + Array(repeating: "(?, ?)", count: skipped.count).joined(separator: ", ") + ")"
        let skippedValues: [SQLValue] = skipped.flatMap { [.text($0.appId), .text($0.providerId)] }
        return try withConnection { connection in
            try connection.transaction {
                var ids = try connection.query(
                    Self.dueCallsQuery(exclusion: exclusion), [.date(now)] + skippedValues + [.int(Int64(limit))]
                ) { $0.text(0) }
                if ids.count < limit {
                    ids += try connection.query(
                        Self.dueJobsQuery(exclusion: exclusion), [.date(now)] + skippedValues + [.int(Int64(limit - ids.count))]
                    ) { $0.text(0) }
                }
                if ids.count < limit {
                    ids += try connection.query(
                        Self.expiredLeasesQuery(exclusion: exclusion), [.date(now)] + skippedValues + [.int(Int64(limit - ids.count))]
                    ) { $0.text(0) }
                }
                guard !ids.isEmpty else { return [] }
                let jobs = try connection.query(
                    Self.leaseStatement,
                    [
                        .text(JobState.leased), .date(now.addingTimeInterval(lease)), .text(ProcessIdentity.current),
                        .text(try Self.idList(ids)),
                    ], PushJob.init(row:))
                return jobs.sorted { ($0.kind == .call ? 0 : 1, $0.notBefore) < ($1.kind == .call ? 0 : 1, $1.notBefore) }
            }
        }
    }

    /// The claim's lease of the jobs it chose: the ids travel as one JSON array (one statement
    /// shape however many, each job found through the primary key), the leased rows come back.
    private static let leaseStatement =
        "UPDATE push_jobs SET state = ?, lease_until = ?, lease_owner = ?, attempts = attempts + 1 "
        + "WHERE id IN (SELECT value FROM json_each(?)) "
        + jobColumns.replacing("SELECT ", with: "RETURNING ").replacing(" FROM push_jobs", with: "")

    /// Job ids as one JSON array of strings, bound to a `json_each(?)`.
    static func idList(_ ids: some Sequence<String>) throws -> String {
        String(decoding: try JSONCodec.encodeData(Array(ids)), as: UTF8.self)
    }

    /// The claim's query for due call pushes (they jump the queue), the longest due first,
    /// through the partial index `push_jobs_pending_calls` (migration 22), which holds only
    /// pending calls. `state = 'pending' AND kind = 'call'` is written out, not bound: a partial
    /// index serves only terms that match its WHERE literally; and the index is named, as in
    /// ``expiredLeasesQuery(exclusion:)``: without statistics SQLite's planner could take
    /// another index (`push_jobs_pending`, which holds every pending job).
    package static func dueCallsQuery(exclusion: String = "") -> String {
        "SELECT id FROM push_jobs INDEXED BY push_jobs_pending_calls "
            + "WHERE state = '\(JobState.pending)' AND kind = '\(PushKind.call.rawValue)' AND not_before <= ?\(exclusion) "
            + "ORDER BY not_before LIMIT ?"
    }

    /// The claim's query for the other due jobs, the longest due first, through the partial
    /// index `push_jobs_pending` (migration 22), which holds only pending jobs: the finished
    /// jobs kept for `--retention-days` and the leased ones are not in it. The calls it reads
    /// (pending calls not yet due, or beyond a claim's limit) are left by `kind <> 'call'`.
    /// Literal and named as ``dueCallsQuery(exclusion:)``.
    package static func dueJobsQuery(exclusion: String = "") -> String {
        "SELECT id FROM push_jobs INDEXED BY push_jobs_pending "
            + "WHERE state = '\(JobState.pending)' AND not_before <= ? AND kind <> '\(PushKind.call.rawValue)'\(exclusion) "
            + "ORDER BY not_before LIMIT ?"
    }

    /// The claim's query for jobs whose lease ran out, the longest expired first. It reads them
    /// through the partial index `push_jobs_leased` (migration 14), named: without statistics
    /// SQLite's planner prefers an index on `state` and then reads every leased job's row, which
    /// with thousands of jobs in flight (a private app's pushes waiting to be sealed) dominated
    /// the claim. `state = 'leased'` is written out, not bound: a partial index serves only a
    /// term that matches its WHERE literally.
    package static func expiredLeasesQuery(exclusion: String = "") -> String {
        "SELECT id FROM push_jobs INDEXED BY push_jobs_leased WHERE state = '\(JobState.leased)' AND lease_until <= ?\(exclusion) "
            + "ORDER BY lease_until LIMIT ?"
    }

    public func finishPushJob(id: String, outcome: JobOutcome, now: Date) throws {
        try finishPushJobs([(id, outcome)], now: now)
    }

    /// Records many outcomes in one transaction (the delivery engine finishes in batches), as
    /// ``OutcomeRows`` says.
    public func finishPushJobs(_ results: [(id: String, outcome: JobOutcome)], now: Date) throws {
        let batch = OutcomeBatch(results)
        try withConnection { connection in
            try connection.transaction {
                // Delivered jobs (nearly all of them) are marked with one statement, their ids
                // one JSON array.
                if !batch.delivered.isEmpty {
                    try connection.run(
                        "UPDATE push_jobs SET state = ?, lease_until = NULL, finished_at = ?, last_error = NULL "
                            + "WHERE id IN (SELECT value FROM json_each(?))",
                        [.text(JobState.delivered), .date(now), .text(try Self.idList(batch.delivered))])
                }
                for (id, rows) in batch.others {
                    try Self.apply(rows, toJob: id, now: now, on: connection)
                }
            }
        }
    }

    /// Carries out one job's ``OutcomeRows``.
    private static func apply(_ rows: OutcomeRows, toJob id: String, now: Date, on connection: SQLiteConnection) throws {
        switch rows.job {
        case .finish(let state, let reason):
            try connection.run(
                "UPDATE push_jobs SET state = ?, lease_until = NULL, finished_at = ?, last_error = ? WHERE id = ?",
                [.text(state), .date(now), .optionalText(reason), .text(id)])
        case .retry(let notBefore, let reason):
            try connection.run(
                "UPDATE push_jobs SET state = ?, lease_until = NULL, not_before = ?, last_error = ? WHERE id = ?",
                [.text(JobState.pending), .date(notBefore), .text(reason), .text(id)])
        }
        if rows.deletesToken {
            try connection.run(
                "DELETE FROM push_tokens WHERE (app_id, token) IN (SELECT app_id, token FROM push_jobs WHERE id = ?)", [.text(id)])
        }
    }

    /// Every job counted by state (the admin API's `GET /admin/outbox`, which the dashboard
    /// polls every 3 s): pending and leased jobs on their partial indexes, finished ones on
    /// `push_jobs_finished` (their state only, no row read). No index holds every job's state
    /// since migration 22: one would be rewritten at each of a job's state changes, while a
    /// job enters `push_jobs_finished` once. At 100,000 jobs a scan of the table took about
    /// 85 ms, on the one connection every send and delivery waits for.
    public func pushJobCounts() throws -> OutboxCounts {
        let rows = try withConnection {
            try $0.query(Self.countsQuery) { ($0.text(0), Int($0.int(1))) }
        }
        return OutboxCounts(byState: rows)
    }

    package static let countsQuery =
        activeCountsQuery + " UNION ALL SELECT state, COUNT(*) FROM push_jobs INDEXED BY push_jobs_finished "
        + "WHERE state NOT IN ('\(JobState.pending)', '\(JobState.leased)') GROUP BY state"

    /// Pending and leased jobs, each state counted on its partial index (`push_jobs_pending`,
    /// `push_jobs_leased`; the states written out so that they serve): finished jobs (kept for
    /// `--retention-days`, so there are many) are not read.
    public func activePushJobCounts() throws -> OutboxCounts {
        let rows = try withConnection {
            try $0.query(Self.activeCountsQuery) { ($0.text(0), Int($0.int(1))) }
        }
        return OutboxCounts(byState: rows)
    }

    package static let activeCountsQuery =
        "SELECT '\(JobState.pending)', COUNT(*) FROM push_jobs INDEXED BY push_jobs_pending WHERE state = '\(JobState.pending)' "
        + "UNION ALL SELECT '\(JobState.leased)', COUNT(*) FROM push_jobs INDEXED BY push_jobs_leased WHERE state = '\(JobState.leased)'"

    /// Makes the jobs of a provider that were waiting for it to be fixed (recorded with a
    /// "provider misconfigured" reason) due now; returns how many.
    public func releaseWaitingJobs(appId: String, providerId: String, now: Date) throws -> Int {
        try withConnection {
            try $0.run(
                "UPDATE push_jobs SET not_before = ? WHERE state = ? AND app_id = ? AND provider_id = ? AND last_error LIKE ?",
                [.date(now), .text(JobState.pending), .text(appId), .text(providerId), .text(JobOutcome.waitingPrefix + "%")])
        }
    }

    /// Makes the push and webhook jobs leased by processes that no longer run claimable at
    /// once (a restarted service takes over its predecessor's leases instead of waiting for
    /// them to expire). Leases of running processes, this one included, are left alone.
    /// Returns how many jobs were released.
    public func releaseAbandonedLeases(now: Date) throws -> Int {
        try withConnection { connection in
            try connection.transaction {
                var released = 0
                // `state = 'leased'` written out: on push_jobs only the partial index
                // `push_jobs_leased` holds the state (migration 22); a bound state would scan
                // the table. (webhook_jobs reads its `(state, not_before)` index either way.)
                let leased = "state = '\(JobState.leased)'"
                for table in ["push_jobs", "webhook_jobs"] {
                    let owners = try connection.query(
                        "SELECT DISTINCT lease_owner FROM \(table) WHERE \(leased) AND lease_owner IS NOT NULL"
                    ) { $0.text(0) }
                    for owner in owners where !ProcessIdentity.isRunning(owner) {
                        released += try connection.run(
                            "UPDATE \(table) SET state = ?, lease_until = NULL, lease_owner = NULL, not_before = MIN(not_before, ?) "
                                + "WHERE \(leased) AND lease_owner = ?",
                            [.text(JobState.pending), .date(now), .text(owner)])
                    }
                }
                return released
            }
        }
    }

    /// Every push job of one send request, oldest first (for the admin API and tests).
    public func pushJobs(requestId: String) throws -> [PushJob] {
        try withConnection {
            try $0.query(Self.jobColumns + " WHERE request_id = ? ORDER BY created_at, id", [.text(requestId)], PushJob.init(row:))
        }
    }

    /// Most rows of one multi-row `INSERT` of push jobs: 25 parameters each, 12,800 in all
    /// (SQLite allows 32,766).
    static let insertChunk = 512

    /// Inserts push jobs with one multi-row `INSERT` per ``insertChunk`` jobs (a 20,000-job send
    /// is 40 statements, not 20,000). The rest of a send is inserted in chunks of powers of two,
    /// so that at most ten statement shapes exist and each stays in the connection's cache.
    static func insert(_ jobs: some Collection<PushJob>, into connection: SQLiteConnection) throws {
        var rest = jobs[...]
        while !rest.isEmpty {
            var rows = insertChunk
            while rows > rest.count { rows /= 2 }
            var values: [SQLValue] = []
            values.reserveCapacity(rows * jobValueCount)
            for job in rest.prefix(rows) { appendValues(of: job, to: &values) }
            try connection.run(insertStatement(rows: rows), values)
            rest = rest.dropFirst(rows)
        }
    }

    /// The columns of a push job's row as ``insert(_:into:)`` writes them.
    private static let jobInsertColumns = """
        INSERT INTO push_jobs (id, app_id, request_id, uid, token, platform, kind, provider_id, payload, push_type,
            priority, expiration, collapse_id, topic_suffix, state, attempts, not_before, created_at, environment, rule,
            finished_at, private_plaintext, trimmed, interruption_level, level_reason)
        VALUES
        """

    /// Parameters per job row.
    private static let jobValueCount = 25

    /// The `INSERT` of `rows` job rows.
    private static func insertStatement(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: jobValueCount).joined(separator: ", ") + ")"
        return jobInsertColumns + " " + Array(repeating: row, count: rows).joined(separator: ",\n")
    }

    /// Appends the ``jobValueCount`` parameters of `job`'s row, in ``jobInsertColumns``' order.
    private static func appendValues(of job: PushJob, to values: inout [SQLValue]) {
        values.append(contentsOf: [
            .text(job.id), .text(job.appId), .text(job.requestId), .text(job.uid), .text(job.token), .text(job.platform.rawValue),
            .text(job.kind.rawValue), .text(job.providerId), .blob(job.payload), .text(job.headers.pushType.rawValue),
            .int(Int64(job.headers.priority)), .int(job.headers.expiration), .optionalText(job.headers.collapseId),
            .text(job.headers.topicSuffix), .text(job.skipped ? JobState.skipped : JobState.pending), .int(Int64(job.attempts)),
            .date(job.notBefore), .date(job.createdAt), .optionalText(job.environment?.rawValue), .optionalText(job.rule),
            job.skipped ? .date(job.createdAt) : .null, PrivatePushColumns.plaintext(job).map(SQLValue.blob) ?? .null,
            .optionalText(PrivatePushColumns.trimmed(job)), .optionalText(job.interruptionLevel), .optionalText(job.levelReason),
        ])
    }

    static func insert(_ webhook: WebhookJob, into connection: SQLiteConnection) throws {
        try connection.run(
            """
            INSERT INTO webhook_jobs (id, app_id, event, body, state, attempts, not_before, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(webhook.id), .text(webhook.appId), .text(webhook.event), .blob(webhook.body), .text(JobState.pending),
                .int(Int64(webhook.attempts)), .date(webhook.notBefore), .date(webhook.createdAt),
            ])
    }

    /// The query of the columns `PushJob(row:)` reads, in its order.
    static let jobColumns = """
        SELECT id, app_id, request_id, uid, token, platform, kind, provider_id, payload, push_type, priority, expiration,
            collapse_id, topic_suffix, attempts, not_before, created_at, environment, rule, state, private_plaintext,
            trimmed, interruption_level, level_reason FROM push_jobs
        """

    public func recordDeliveries(tokens: [TokenRef], providers: [ProviderRef], at time: Date) throws {
        guard !tokens.isEmpty || !providers.isEmpty else { return }
        try withConnection { connection in
            try connection.transaction {
                for token in tokens {
                    try connection.run(
                        "UPDATE push_tokens SET delivered_at = ? WHERE app_id = ? AND token = ? AND delivered_at IS NULL",
                        [.date(time), .text(token.appId), .text(token.token)])
                }
                for provider in providers {
                    try connection.run(
                        "UPDATE providers SET last_delivered_at = ? WHERE app_id = ? AND id = ?",
                        [.date(time), .text(provider.appId), .text(provider.providerId)])
                }
            }
        }
    }

    public func tokenHasDelivered(appId: String, token: String) throws -> Bool {
        try withConnection {
            try $0.query(
                "SELECT delivered_at IS NOT NULL FROM push_tokens WHERE app_id = ? AND token = ?", [.text(appId), .text(token)]
            ) { $0.int(0) != 0 }.first ?? false
        }
    }

    public func providerLastDelivered(appId: String, providerId: String) throws -> Date? {
        try withConnection {
            try $0.query(
                "SELECT last_delivered_at FROM providers WHERE app_id = ? AND id = ? AND last_delivered_at IS NOT NULL",
                [.text(appId), .text(providerId)]
            ) { $0.date(0) }.first
        }
    }
}
