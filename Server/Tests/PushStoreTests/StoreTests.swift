import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// The SQLite store directly: WAL, migrations, and the outbox API the delivery engine uses.
@Suite struct StoreTests {
    let path = NSTemporaryDirectory() + "push-store-" + UUID().uuidString + ".sqlite"

    func job(_ id: String, token: String = "tok", notBefore: Date = Date(timeIntervalSince1970: 0)) -> PushJob {
        .test(
            id, appId: "a", requestId: "r", uid: "u", token: token, providerId: "p", notBefore: notBefore,
            createdAt: Date(timeIntervalSince1970: 0))
    }

    @Test func opensInWALModeAndMigratesOnce() async throws {
        let store = try SQLiteStore(path: path)
        #expect(try store.journalMode() == "wal")
        #expect(store.schemaVersion >= 1)
        let reopened = try SQLiteStore(path: path)
        #expect(reopened.schemaVersion == store.schemaVersion)
    }

    /// The claim's look for expired leases reads leased jobs through the partial index
    /// `push_jobs_leased`, not every leased job's row (issue 28: with many private pushes in
    /// flight that scan dominated the claim).
    @Test func expiredLeasesAreFoundThroughTheirIndex() async throws {
        _ = try SQLiteStore(path: path)
        let plan = try SQLiteFile.execute(path: path, "EXPLAIN QUERY PLAN " + SQLiteStore.expiredLeasesQuery().replacing("?", with: "1"))
        #expect(plan.flatMap { $0 }.contains { $0.contains("USING INDEX push_jobs_leased") }, "plan: \(plan)")
    }

    /// The claim's due calls and due jobs are read through the partial indexes of migration 22,
    /// which hold only pending jobs (issue 32): not through an index on `state` that holds every
    /// job, nor by a scan. With and without excluded providers; and the health check's counts
    /// read only the partial indexes.
    @Test func dueJobsAreFoundThroughThePendingIndexes() async throws {
        _ = try SQLiteStore(path: path)
        func plan(_ sql: String) throws -> String {
            try SQLiteFile.execute(path: path, "EXPLAIN QUERY PLAN " + sql.replacing("?", with: "'1'")).flatMap { $0 }
                .joined(separator: " | ")
        }
        let exclusion = " AND (app_id, provider_id) NOT IN (VALUES (?, ?))"
        for sql in [SQLiteStore.dueCallsQuery(), SQLiteStore.dueCallsQuery(exclusion: exclusion)] {
            let plan = try plan(sql)
            #expect(plan.contains("SEARCH push_jobs USING INDEX push_jobs_pending_calls (not_before<?)"), "plan: \(plan)")
        }
        for sql in [SQLiteStore.dueJobsQuery(), SQLiteStore.dueJobsQuery(exclusion: exclusion)] {
            let plan = try plan(sql)
            #expect(plan.contains("SEARCH push_jobs USING INDEX push_jobs_pending (not_before<?)"), "plan: \(plan)")
        }
        let counts = try plan(SQLiteStore.activeCountsQuery)
        #expect(counts.contains("USING INDEX push_jobs_pending") && counts.contains("USING INDEX push_jobs_leased"), "plan: \(counts)")
        #expect(!counts.contains("SCAN push_jobs |") && !counts.hasSuffix("SCAN push_jobs"), "plan: \(counts)")
        // The admin API's counts (polled by the dashboard): no row read either.
        let all = try plan(SQLiteStore.countsQuery)
        #expect(all.contains("push_jobs_finished") && all.contains("push_jobs_pending") && all.contains("push_jobs_leased"), "plan: \(all)")
        #expect(!all.contains("SCAN push_jobs |") && !all.hasSuffix("SCAN push_jobs") && !all.contains("SCAN push_jobs\n"), "plan: \(all)")
        let indexes = try SQLiteFile.execute(path: path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'push_jobs'")
            .flatMap { $0 }
        #expect(!indexes.contains("push_jobs_due") && !indexes.contains("push_jobs_kind_due"), "indexes: \(indexes)")
    }

    /// The claim on the partial indexes: due calls first (however late the others are due),
    /// then the others by due time, then the leases that ran out; not the jobs not yet due, nor
    /// those of an excluded provider; and the counts follow.
    @Test func claimTakesCallsThenDueJobsThenExpiredLeases() async throws {
        let store = try SQLiteStore(path: path)
        let now = Date(timeIntervalSince1970: 1_000)
        func make(_ id: String, kind: PushKind = .chat, provider: String = "p", due: TimeInterval) -> PushJob {
            var job = job(id, notBefore: now.addingTimeInterval(due))
            job.kind = kind
            job.providerId = provider
            return job
        }
        try store.enqueue(
            webhooks: [],
            pushJobs: [
                make("old", due: -50), make("older", due: -60), make("call", kind: .call, due: -1),
                make("late-call", kind: .call, due: 10), make("later", due: 10), make("other", provider: "q", due: -70),
                make("other-call", kind: .call, provider: "q", due: -70), make("lease", due: -100),
            ])
        #expect(try store.claimPushJobs(limit: 1, lease: 5, now: now.addingTimeInterval(-100)).map(\.id) == ["lease"])
        let q: Set = [ProviderRef(appId: "a", providerId: "q")]
        // The lease taken at -100 for 5 s ran out at -95, but it comes after the due jobs.
        #expect(try store.claimPushJobs(limit: 3, lease: 30, now: now, excluding: q).map(\.id) == ["call", "older", "old"])
        #expect(try store.claimPushJobs(limit: 10, lease: 30, now: now, excluding: q).map(\.id) == ["lease"])
        #expect(try store.activePushJobCounts() == OutboxCounts(pending: 4, inFlight: 4, delivered: 0, failed: 0))
        #expect(try store.claimPushJobs(limit: 1, lease: 30, now: now).map(\.id) == ["other-call"])
        let last = try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(10))
        #expect(last.map(\.id) == ["late-call", "other", "later"])
        #expect(try store.activePushJobCounts() == OutboxCounts(pending: 0, inFlight: 8, delivered: 0, failed: 0))
        #expect(try store.pushJobCounts() == OutboxCounts(pending: 0, inFlight: 8, delivered: 0, failed: 0))
    }

    /// SQLite binding: an empty blob is stored as an empty blob (not NULL, which a NOT NULL
    /// column refuses) and text is bound by its length (an embedded NUL does not cut it).
    @Test func emptyBlobsAndTextWithNULsRoundTrip() async throws {
        let store = try SQLiteStore(path: path)
        try store.createApp(AppRecord(id: "a", name: "App", createdAt: Date()))
        try store.createUser(UserRecord(appId: "a", uid: "u\u{0}x", name: "Ann\u{0}Lee", createdAt: Date()))
        #expect(try store.user(appId: "a", uid: "u\u{0}x")?.name == "Ann\u{0}Lee")
        #expect(try store.user(appId: "a", uid: "u") == nil, "the uid is not cut at its NUL")
        try store.enqueue(
            webhooks: [
                WebhookJob(
                    id: "w1", appId: "a", event: "e", body: Data(), attempts: 0, notBefore: Date(timeIntervalSince1970: 0),
                    createdAt: Date())
            ],
            pushJobs: [])
        let claimed = try store.claimWebhookJobs(limit: 1, lease: 30, now: Date())
        #expect(claimed.first?.body == Data())
    }

    /// What wakes the workers on SQLite: each commit that added work runs the handler, after the
    /// commit (the handler sees the jobs); a replayed send, skipped jobs and nothing do not.
    @Test func addedJobsAreReportedAfterTheirCommit() throws {
        let store = try SQLiteStore(path: path)
        let seen = Locked<[Int]>([])
        store.onJobsAdded { seen.withLock { $0.append((try? store.pushJobCounts().pending) ?? -1) } }
        try store.enqueue(webhooks: [], pushJobs: [job("j1")])
        #expect(seen.withLock { $0 } == [1])
        let send = { (key: String, id: String) in
            try store.acceptSend(
                appId: "a", idempotencyKey: key, requestHash: Data([1]), jobs: [job(id)], webhooks: [], response: Data(), now: Date())
        }
        _ = try send("k1", "j2")
        #expect(seen.withLock { $0 } == [1, 2])
        // A replay adds nothing
        _ = try send("k1", "j3")
        #expect(seen.withLock { $0 } == [1, 2])
        // Webhook jobs alone wake too
        try store.enqueue(
            webhooks: [WebhookJob(id: "w1", appId: "a", event: "e", body: Data(), attempts: 0, notBefore: Date(), createdAt: Date())],
            pushJobs: [])
        #expect(seen.withLock { $0 } == [1, 2, 2])
        // Jobs a preference skipped, and nothing, do not
        var skipped = job("j4")
        skipped.skipped = true
        try store.enqueue(webhooks: [], pushJobs: [skipped])
        try store.enqueue(webhooks: [], pushJobs: [])
        #expect(seen.withLock { $0 } == [1, 2, 2])
    }

    @Test func claimLeasesFinishAndRetry() async throws {
        let store = try SQLiteStore(path: path)
        let now = Date(timeIntervalSince1970: 1_000)
        try store.enqueue(webhooks: [], pushJobs: [job("j1"), job("j2"), job("j3", notBefore: now.addingTimeInterval(100))])
        let claimed = try store.claimPushJobs(limit: 10, lease: 30, now: now)
        #expect(claimed.map(\.id).sorted() == ["j1", "j2"])
        #expect(claimed.allSatisfy { $0.attempts == 1 })
        // Leased jobs are not claimed again until the lease ends.
        #expect(try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(10)).isEmpty)
        try store.finishPushJob(id: "j1", outcome: .delivered, now: now)
        try store.finishPushJob(id: "j2", outcome: .retry(notBefore: now.addingTimeInterval(5), reason: "503"), now: now)
        #expect(try store.pushJobCounts() == OutboxCounts(pending: 2, inFlight: 0, delivered: 1, failed: 0))
        let retried = try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(6))
        #expect(retried.map(\.id) == ["j2"])
        #expect(retried.first?.attempts == 2)
        // A crashed claimer's lease runs out and the job comes back.
        let reclaimed = try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(200))
        #expect(Set(reclaimed.map(\.id)) == ["j2", "j3"])
    }

    @Test func tokenInvalidDeletesTheToken() async throws {
        let store = try SQLiteStore(path: path)
        let now = Date()
        try store.createApp(AppRecord(id: "a", name: "a", createdAt: now))
        try store.createUser(UserRecord(appId: "a", uid: "u", name: "u", createdAt: now))
        _ = try store.registerToken(
            PushTokenRecord(
                appId: "a", uid: "u", token: "dead", platform: .apnsDevice, providerId: "p", timezone: nil, authTokenHash: Data([1]),
                authTokenHint: "h", createdAt: now, updatedAt: now), maxPerUser: 100)
        try store.enqueue(webhooks: [], pushJobs: [job("j1", token: "dead")])
        _ = try store.claimPushJobs(limit: 1, lease: 30, now: now)
        try store.finishPushJob(id: "j1", outcome: .tokenInvalid(reason: "Unregistered"), now: now)
        #expect(try store.tokens(appId: "a", uid: nil).isEmpty)
        #expect(try store.pushJobCounts().failed == 1)
    }
}
