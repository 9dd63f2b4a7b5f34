import Foundation
import PushCore
import PushMocks
import PushService
import PushStore
import PushTestSupport
import Testing

/// Retention (`--retention-days`): the stores' purge of finished work, on SQLite and (with
/// `PUSH_TEST_DATABASE_URL`) PostgreSQL, and the running service's background purge.
@Suite struct RetentionTests {
    /// A fresh database for one test, and its directory (removed at the end).
    final class Fixture: @unchecked Sendable {
        // @unchecked: immutable.
        let directory = NSTemporaryDirectory() + "push-retention-" + UUID().uuidString
        let database: TestDatabase
        let store: any ServiceStore

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            database = try TestDatabase(directory: directory)
            store = try database.open()
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static func job(_ id: String, createdAt: Date, notBefore: Date? = nil, skipped: Bool = false) -> PushJob {
        .test(
            id, appId: "a", requestId: "r", uid: "u", token: "tok-" + id, providerId: "p", notBefore: notBefore, createdAt: createdAt,
            skipped: skipped)
    }

    /// The first instant strictly after every time stored so far (times are kept in
    /// milliseconds): waits for the clock to pass `Date()` by 2 ms, without a fixed sleep.
    static func instantAfterNow() -> Date {
        let start = Date()
        var now = Date()
        while now.timeIntervalSince(start) < 0.002 { now = Date() }
        return now
    }

    /// Old finished jobs of every final state, old delivered webhook jobs, old events, old
    /// idempotency records and old calls go; recent ones, and jobs still to do (pending,
    /// waiting, retrying, leased) however old, stay. More rows than one batch all go, the
    /// counts say what went, and a second purge deletes nothing.
    @Test func purgeDeletesOldFinishedWorkAndKeepsTheRest() throws {
        let fixture = try Fixture()
        let store = fixture.store
        // Times relative to the cutoff, which is now (the webhook outbox stamps its finish
        // with the real clock): "old" is ten days before it, "recent" an hour after it. (Recent
        // was a second after the start of the test: on a loaded machine the test took longer
        // than that before it purged, and its recent jobs were older than the cutoff.)
        let base = Date()
        let old = base.addingTimeInterval(-10 * 86_400)
        let recent = base.addingTimeInterval(3_600)
        let bulk = (0..<11).map { "old-bulk-\($0)" }
        let finishedOld = ["old-delivered", "old-failed", "old-expired", "old-token-invalid"] + bulk
        let claimedOld = finishedOld + ["old-leased", "old-retrying", "old-waiting", "old-finished-recently", "old-late-retry"]
        try store.enqueue(
            webhooks: [
                WebhookJob(id: "w-old", appId: "a", event: "e", body: Data("{}".utf8), notBefore: old, createdAt: old),
                WebhookJob(id: "w-late", appId: "a", event: "e", body: Data("{}".utf8), notBefore: old, createdAt: old),
                WebhookJob(id: "w-leased", appId: "a", event: "e", body: Data("{}".utf8), notBefore: old, createdAt: old),
                WebhookJob(
                    id: "w-pending", appId: "a", event: "e", body: Data("{}".utf8), notBefore: base.addingTimeInterval(86_400),
                    createdAt: old),
            ],
            pushJobs: claimedOld.map { Self.job($0, createdAt: old) } + [
                Self.job("old-skipped", createdAt: old, skipped: true),
                Self.job("old-pending", createdAt: old, notBefore: base.addingTimeInterval(86_400)),
                Self.job("recent-delivered", createdAt: recent.addingTimeInterval(1), notBefore: old),
                Self.job("recent-skipped", createdAt: recent.addingTimeInterval(1), skipped: true),
            ])
        let claimed = try store.claimPushJobs(limit: 100, lease: 400 * 86_400, now: old)
        #expect(Set(claimed.map(\.id)) == Set(claimedOld + ["recent-delivered"]))
        let finishAt = old.addingTimeInterval(60)
        try store.finishPushJobs(
            (["old-delivered"] + bulk).map { ($0, JobOutcome.delivered) } + [
                ("old-failed", .failed(reason: "400 BadDeviceToken")), ("old-expired", .expired(reason: "expired")),
                ("old-token-invalid", .tokenInvalid(reason: "410 Unregistered")),
                ("old-retrying", .retry(notBefore: old.addingTimeInterval(120), reason: "503")),
                ("old-waiting", .retry(notBefore: base.addingTimeInterval(30 * 86_400), reason: JobOutcome.waitingPrefix + " (403)")),
            ], now: finishAt)
        // Delivered by one instance, then the late retry of another whose lease had run out
        // makes it pending again: its row keeps the old finish time, only its state says
        // it is still to do.
        try store.finishPushJob(id: "old-late-retry", outcome: .delivered, now: finishAt)
        try store.finishPushJob(
            id: "old-late-retry", outcome: .retry(notBefore: base.addingTimeInterval(30 * 86_400), reason: "503"), now: finishAt)
        try store.finishPushJob(id: "old-finished-recently", outcome: .delivered, now: recent.addingTimeInterval(1))
        try store.finishPushJob(id: "recent-delivered", outcome: .delivered, now: recent.addingTimeInterval(2))
        // Trace events, idempotency records and calls, old and recent.
        for index in 0..<7 {
            _ = try store.recordPushEvent(PushEvent(appId: "a", pushId: "old-bulk-\(index)", requestId: "r", step: "delivered", at: old))
            _ = try store.acceptSend(
                appId: "a", idempotencyKey: "old-key-\(index)", requestHash: Data([1]), jobs: [], webhooks: [], response: Data([2]),
                now: old)
        }
        _ = try store.recordPushEvent(
            PushEvent(appId: "a", pushId: "recent-delivered", requestId: "r", step: "delivered", at: recent.addingTimeInterval(3)))
        _ = try store.acceptSend(
            appId: "a", idempotencyKey: "recent-key", requestHash: Data([1]), jobs: [], webhooks: [], response: Data([2]),
            now: recent.addingTimeInterval(3))
        try store.recordCall(CallRecord(appId: "a", sessionId: "old-call", callerUid: "u", details: Data([1]), createdAt: old))
        try store.recordCall(
            CallRecord(appId: "a", sessionId: "recent-call", callerUid: "u", details: Data([1]), createdAt: recent.addingTimeInterval(3)))
        // Webhooks: one delivered before the cutoff, one after it, one leased, one pending.
        #expect(try store.claimWebhookJobs(limit: 10, lease: 400 * 86_400, now: old).count == 3)
        try store.finishWebhookJob(id: "w-old", retryAt: nil, error: nil)
        let cutoff = Self.instantAfterNow()
        try store.finishWebhookJob(id: "w-late", retryAt: nil, error: nil)

        let counts = try store.purgeFinished(before: cutoff, batchSize: 4)

        #expect(counts == RetentionCounts(pushJobs: finishedOld.count + 1, webhookJobs: 1, pushEvents: 7, idempotencyKeys: 7, calls: 1))
        let left = try store.pushJobLog(appId: "a", requestId: "r")
        #expect(
            Set(left.map(\.id))
                == [
                    "old-leased", "old-retrying", "old-waiting", "old-late-retry", "old-pending", "old-finished-recently",
                    "recent-delivered",
                    "recent-skipped",
                ])
        #expect(left.first { $0.id == "old-leased" }?.state == "leased", "a leased job stays leased")
        #expect(try store.activePushJobCounts() == OutboxCounts(pending: 4, inFlight: 1, delivered: 0, failed: 0))
        #expect(try store.pushEvents(appId: "a", requestId: "r").map(\.pushId) == ["recent-delivered"])
        #expect(try store.call(appId: "a", sessionId: "old-call") == nil)
        #expect(try store.call(appId: "a", sessionId: "recent-call") != nil)
        #expect(try store.pendingWebhookJobCount() == 2, "the leased and the pending webhook job stay")
        // A purged key is new again; a recent one still replays.
        let again = try store.acceptSend(
            appId: "a", idempotencyKey: "old-key-0", requestHash: Data([1]), jobs: [], webhooks: [], response: Data([3]),
            now: recent.addingTimeInterval(5))
        #expect(again == .accepted(response: Data([3])))
        let replay = try store.acceptSend(
            appId: "a", idempotencyKey: "recent-key", requestHash: Data([1]), jobs: [], webhooks: [], response: Data([3]),
            now: recent.addingTimeInterval(5))
        #expect(replay == .replayed(response: Data([2])))
        // Nothing left to delete: the second purge is a no-op.
        #expect(try store.purgeFinished(before: cutoff, batchSize: 4) == RetentionCounts())
        // The webhook delivered after the cutoff goes with a later one, the jobs still to do never.
        let later = try store.purgeFinished(before: base.addingTimeInterval(86_400), batchSize: 5_000)
        #expect(later.webhookJobs == 1 && later.pushJobs == 3, "\(later)")
        #expect(
            Set(try store.pushJobLog(appId: "a", requestId: "r").map(\.id)) == [
                "old-leased", "old-retrying", "old-waiting", "old-late-retry", "old-pending",
            ])
    }

    // MARK: The running service

    /// An old finished job put into the store of a running service with a short interval is
    /// deleted by its background purge, and `/metrics` counts it.
    @Test func theRunningServicePurgesOldFinishedJobs() async throws {
        let harness = try await Harness.start { $0.retentionIntervalSeconds = 0.1 }
        let store = harness.store
        let old = Date().addingTimeInterval(-30 * 86_400)
        try Self.insertFinishedJob("svc-old", createdAt: old, into: store)
        try Self.insertFinishedJob("svc-recent", createdAt: Date(), into: store)
        let purged = try await eventually(timeout: 60) {
            try store.pushJobLog(appId: "a", requestId: "r").map(\.id) == ["svc-recent"]
        }
        #expect(purged, "the old finished job was not purged")
        // The purge adds its counts once its transaction has committed, a moment after the
        // store shows the job gone: read /metrics until it counts the job (or 30 s pass).
        let counted = "push_retention_deleted_total{kind=\"push_jobs\"} 1"
        var metrics = ""
        _ = try await eventually(timeout: 30) {
            metrics = Self.text(try await harness.json("GET", "/metrics"))
            return metrics.contains(counted)
        }
        #expect(metrics.contains(counted), "\(metrics)")
    }

    /// `--retention-days 0` keeps everything: a control service with retention on, started
    /// after it with the same short interval, purges its own old job; by then the service with
    /// retention off has had as many chances and still has its old job.
    @Test func retentionZeroKeepsEverything() async throws {
        let log = RecordingLogHandler()
        let keeping = try await Harness.start(
            configure: {
                $0.retentionDays = 0
                $0.retentionIntervalSeconds = 0.05
            }, logs: log)
        try Self.insertFinishedJob("kept", createdAt: Date().addingTimeInterval(-3_650 * 86_400), into: keeping.store)
        let control = try await Harness.start { $0.retentionIntervalSeconds = 0.05 }
        try Self.insertFinishedJob("purged", createdAt: Date().addingTimeInterval(-3_650 * 86_400), into: control.store)
        let controlPurged = try await eventually(timeout: 60) {
            try control.store.pushJobLog(appId: "a", requestId: "r").isEmpty
        }
        #expect(controlPurged, "the control service did not purge")
        #expect(try keeping.store.pushJobLog(appId: "a", requestId: "r").map(\.id) == ["kept"])
        #expect(log.records(containing: "retention off").map(\.level) == [.info])
        let metrics = try await keeping.json("GET", "/metrics")
        #expect(Self.text(metrics).contains("push_retention_deleted_total{kind=\"push_jobs\"} 0"), "\(Self.text(metrics))")
    }

    /// A purge that fails (a trigger refuses to delete push jobs) is logged and tried again at
    /// the next interval while the service goes on answering; once the cause is gone, the next
    /// run deletes the job.
    @Test func aFailedPurgeIsLoggedAndRetried() async throws {
        let log = RecordingLogHandler()
        let harness = try await Harness.start(configure: { $0.retentionIntervalSeconds = 0.05 }, logs: log)
        try Self.blockDeletes(of: harness.database, true)
        try Self.insertFinishedJob("blocked", createdAt: Date().addingTimeInterval(-30 * 86_400), into: harness.store)
        let retried = await eventually(timeout: 60) {
            log.records(containing: "retention purge failed").count >= 2
        }
        #expect(retried, "no failed purge was logged twice")
        let health = try await harness.json("GET", "/healthz")
        #expect(health.status == 200)
        #expect(try harness.store.pushJobLog(appId: "a", requestId: "r").map(\.id) == ["blocked"])
        try Self.blockDeletes(of: harness.database, false)
        let purged = try await eventually(timeout: 60) {
            try harness.store.pushJobLog(appId: "a", requestId: "r").isEmpty
        }
        #expect(purged, "the purge did not recover")
    }

    /// Adds (or removes) a trigger that refuses every delete from `push_jobs`, through a client
    /// of its own: `psql` on PostgreSQL, Python's sqlite3 module on SQLite.
    static func blockDeletes(of database: TestDatabase, _ block: Bool) throws {
        if let url = database.url {
            try PGTest.psql(
                block
                    ? """
                    CREATE FUNCTION block_purge() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'deletes blocked by the test'; END $$;
                    CREATE TRIGGER block_purge BEFORE DELETE ON push_jobs FOR EACH ROW EXECUTE FUNCTION block_purge();
                    """
                    : "DROP TRIGGER block_purge ON push_jobs", url: url)
            return
        }
        let sql =
            block
            ? "CREATE TRIGGER block_purge BEFORE DELETE ON push_jobs BEGIN SELECT RAISE(ABORT, 'deletes blocked by the test'); END"
            : "DROP TRIGGER block_purge"
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], timeout=30); c.execute(sys.argv[2]); c.commit()",
            database.sqlitePath, sql,
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PGTestError("python3 sqlite3 failed: \(process.terminationStatus)") }
    }

    static func text(_ response: RawHTTP.Response) -> String { String(decoding: response.body, as: UTF8.self) }

    static func insertFinishedJob(_ id: String, createdAt: Date, into store: any ServiceStore) throws {
        try store.enqueue(webhooks: [], pushJobs: [job(id, createdAt: createdAt)])
        let claimed = try store.claimPushJobs(limit: 10, lease: 60, now: createdAt.addingTimeInterval(1))
        #expect(claimed.map(\.id) == [id])
        try store.finishPushJob(id: id, outcome: .delivered, now: createdAt.addingTimeInterval(2))
    }
}
