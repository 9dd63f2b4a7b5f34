import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// What urgency (issue 30) keeps in the stores, on SQLite and (with `PUSH_TEST_DATABASE_URL`)
/// PostgreSQL: each app's delivery policy, and each job's interruption level and its reason
/// wherever jobs are read; a database of schema 13 migrates with the defaults.
@Suite struct UrgencyStoreTests {
    typealias Fixture = PrivatePushStoreTests.Fixture

    @Test func theAppsDeliveryPolicyRoundTrips() throws {
        let fixture = try Fixture()
        let store = fixture.store
        #expect(try store.app(id: "a1")?.deliveryPolicy == .standard)
        let policy = DeliveryPolicy(timeSensitive: true, levels: [.reaction: .active, .call: .timeSensitive], relevance: [.mention: 1])
        let created = AppRecord(id: "a3", name: "Urgent", createdAt: Fixture.t0, deliveryPolicy: policy)
        try store.createApp(created)
        #expect(try store.app(id: "a3") == created)
        var app = try #require(try store.app(id: "a1"))
        app.deliveryPolicy = DeliveryPolicy(levels: [.group: .passive])
        try store.updateApp(app)
        #expect(try store.app(id: "a1") == app)
        #expect(try store.apps().map(\.deliveryPolicy) == [app.deliveryPolicy, .standard, policy])
        app.deliveryPolicy = .standard
        try store.updateApp(app)
        #expect(try store.app(id: "a1")?.deliveryPolicy == .standard)
    }

    @Test func jobsKeepTheirLevelAndReasonEverywhereTheyAreRead() throws {
        let fixture = try Fixture()
        let store = fixture.store
        func job(_ id: String, _ level: String?, _ reason: String?, request: String = "r1") -> PushJob {
            var job = PushJob.test(id, requestId: request, token: "tok-" + id, notBefore: Fixture.t0, createdAt: Fixture.t0)
            job.interruptionLevel = level
            job.levelReason = reason
            return job
        }
        let jobs = [
            job("j1", "time-sensitive", "mention"), job("j2", "passive", "quiet-hours"), job("j3", nil, nil),
            job("j4", "active", "direct; time-sensitive not enabled"),
        ]
        _ = try store.acceptSend(
            appId: "a1", idempotencyKey: "k1", requestHash: Data([1]), jobs: jobs, webhooks: [], response: Data(), now: Fixture.t0)
        let levels = jobs.map(\.interruptionLevel)
        let reasons = jobs.map(\.levelReason)
        #expect(try store.pushJobs(requestId: "r1").map(\.interruptionLevel) == levels)
        #expect(try store.pushJobs(requestId: "r1").map(\.levelReason) == reasons)
        #expect(try store.allPushJobs().map(\.levelReason) == reasons)
        let log = try store.pushJobLog(appId: "a1", requestId: "r1")
        #expect(log.map(\.interruptionLevel) == levels && log.map(\.levelReason) == reasons)
        let claimed = try store.claimPushJobs(limit: 10, lease: 30, now: Fixture.t0.addingTimeInterval(1), excluding: [])
        #expect(claimed.count == 4)
        for job in claimed {
            #expect(job.levelReason == jobs.first { $0.id == job.id }?.levelReason, "\(job.id)")
        }
    }

    static func expectSchema13Migrated(_ store: any ServiceStore) throws {
        #expect(try store.app(id: "a1")?.deliveryPolicy == .standard)
        let job = try #require(try store.pushJobs(requestId: "r1").first)
        #expect(job.id == "j1" && job.interruptionLevel == nil && job.levelReason == nil)
        #expect(try store.pushJobLog(appId: "a1", requestId: "r1").map(\.interruptionLevel) == [nil])
    }

    @Test func aSQLiteDatabaseOfSchema13Migrates() throws {
        let path = NSTemporaryDirectory() + "push-urgency-" + UUID().uuidString + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        #expect(try SQLiteStore.migrate(path: path, to: 13) == 13)
        _ = try SQLiteFile.execute(path: path, PrivatePushMigrationTests.schema12Rows)
        let store = try SQLiteStore(path: path)
        #expect(store.schemaVersion == 22)
        try Self.expectSchema13Migrated(store)
    }

    @Test(.enabled(if: PGTest.url != nil, "needs PUSH_TEST_DATABASE_URL"))
    func aPostgreSQLDatabaseOfSchema13Migrates() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        #expect(try PostgresStore.migrate(url: schema.url, to: 13) == 13)
        try schema.psql(
            PrivatePushMigrationTests.schema12Rows.replacingOccurrences(of: "'h', 'h'", with: "'\\x68', 'h'")
                .replacingOccurrences(of: "'p1', '{}', 'alert'", with: "'p1', '\\x7b7d', 'alert'"))
        let store = try schema.open(poolSize: 1)
        defer { store.close() }
        #expect(store.schemaVersion == 22)
        try Self.expectSchema13Migrated(store)
        #expect(try schema.psql("SELECT count(*) FROM push_job_rows WHERE interruption_level IS NULL AND level_reason IS NULL") == "1")
    }
}
