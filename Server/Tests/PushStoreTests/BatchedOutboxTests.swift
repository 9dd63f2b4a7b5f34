import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// The outbox at batch speed (issue 32): a send's jobs stored with multi-row inserts, every field
/// and every job as one row each would store it, in one transaction; claims and finishes of any
/// size; and on SQLite the log copied into the database by the checkpointing thread instead of
/// inside a commit. On SQLite and (with `PUSH_TEST_DATABASE_URL`) PostgreSQL.
@Suite struct BatchedOutboxTests {
    final class Fixture: @unchecked Sendable {
        // @unchecked: immutable.
        let directory = NSTemporaryDirectory() + "push-batched-" + UUID().uuidString
        let database: TestDatabase
        let store: any ServiceStore

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            database = try TestDatabase(directory: directory)
            store = try database.open()
            try store.createApp(AppRecord(id: "a1", name: "App", createdAt: Self.t0))
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

        /// `count` jobs of request `request`, each different in every column a job stores.
        func jobs(_ count: Int, request: String = "r1", idPrefix: String = "j", padding: Int = 0) -> [PushJob] {
            let pad = String(repeating: "x", count: padding)
            return (0..<count).map { index in
                var job = PushJob.test(
                    "\(idPrefix)\(index)", requestId: request, uid: "u\(index % 7)", token: "tok\(index)",
                    kind: index % 5 == 0 ? .call : .chat, payload: Data("{\"n\":\(index),\"p\":\"\(pad)\"}".utf8), expiration: Int64(index),
                    collapseId: index % 3 == 0 ? nil : "c\(index)", notBefore: Self.t0.addingTimeInterval(Double(index % 4)),
                    createdAt: Self.t0, environment: index % 2 == 0 ? .sandbox : nil, rule: index % 11 == 0 ? "muted" : nil)
                job.interruptionLevel = index % 2 == 0 ? "active" : nil
                job.levelReason = index % 2 == 0 ? "direct" : nil
                return job
            }
        }

        func accept(_ jobs: [PushJob], key: String) throws -> SendAcceptance {
            try store.acceptSend(
                appId: "a1", idempotencyKey: key, requestHash: Data([1]), jobs: jobs, webhooks: [], response: Data("ok".utf8),
                now: Self.t0)
        }
    }

    /// 1,000 + 37 jobs: one full chunk and the rest in smaller ones; each job reads back as it
    /// was given, and a replay stores nothing more.
    @Test func aSendOfAnySizeStoresEveryJobAsGiven() throws {
        let fixture = try Fixture()
        let jobs = fixture.jobs(1_037)
        #expect(try fixture.accept(jobs, key: "k1") == .accepted(response: Data("ok".utf8)))
        let stored = try fixture.store.pushJobs(requestId: "r1")
        #expect(stored.count == jobs.count)
        #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0) }) == Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, $0) }))
        #expect(try fixture.accept(fixture.jobs(5, request: "r2", idPrefix: "x"), key: "k1") == .replayed(response: Data("ok".utf8)))
        #expect(try fixture.store.pushJobs(requestId: "r2").isEmpty)
        #expect(try fixture.store.pushJobCounts().pending == jobs.count)
    }

    /// A send whose last chunk fails (a job id already stored) leaves nothing: not its other
    /// chunks, not its idempotency key, which a later send may then use.
    @Test func aSendThatFailsInItsLastChunkLeavesNothing() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.jobs(1, request: "r0", idPrefix: "dup"), key: "k0")
        var jobs = fixture.jobs(600, request: "r1")
        jobs.append(fixture.jobs(1, request: "r1", idPrefix: "dup")[0])
        #expect(throws: StoreError.self) { try fixture.accept(jobs, key: "k1") }
        #expect(try fixture.store.pushJobs(requestId: "r1").isEmpty)
        #expect(try fixture.accept(fixture.jobs(3, request: "r2", idPrefix: "y"), key: "k1") == .accepted(response: Data("ok".utf8)))
        #expect(try fixture.store.pushJobCounts().pending == 4)
    }

    /// A send made batch by batch while the store writes it (issue 32): batches of any size,
    /// empty ones too, are all stored; the answer is made after the last batch and stored with
    /// the key; a replay of the key makes no batch at all.
    @Test func aSendMadeInBatchesIsStoredWholeAndAReplayMakesNoBatch() throws {
        let fixture = try Fixture()
        let jobs = fixture.jobs(1_039)
        var batches = [Array(jobs[0..<1]), Array(jobs[1..<701]), [], Array(jobs[701..<1_034]), Array(jobs[1_034...])][...]
        let outcome = try fixture.store.acceptSend(
            appId: "a1", idempotencyKey: "k1", requestHash: Data([1]), jobs: SendJobs { batches.popFirst() }, webhooks: [],
            response: { Data("made after \(5 - batches.count) batches".utf8) }, now: BatchedOutboxTests.Fixture.t0)
        #expect(outcome == .accepted(response: Data("made after 5 batches".utf8)))
        let stored = try fixture.store.pushJobs(requestId: "r1")
        #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0) }) == Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, $0) }))
        var made = 0
        let replay = try fixture.store.acceptSend(
            appId: "a1", idempotencyKey: "k1", requestHash: Data([1]),
            jobs: SendJobs {
                made += 1
                return made == 1 ? fixture.jobs(3, request: "r2", idPrefix: "x") : nil
            }, webhooks: [], response: { Data("other".utf8) }, now: BatchedOutboxTests.Fixture.t0)
        #expect(replay == .replayed(response: Data("made after 5 batches".utf8)))
        #expect(made == 0)
        #expect(try fixture.store.pushJobCounts().pending == jobs.count)
    }

    struct Refused: Error, Equatable {}

    /// A batch maker that throws after some batches were written refuses the send: the error
    /// reaches the caller as thrown, no job and no key is stored, and the key is free again.
    @Test func aBatchThatCannotBeMadeRefusesTheWholeSend() throws {
        let fixture = try Fixture()
        var made = 0
        #expect(throws: Refused()) {
            try fixture.store.acceptSend(
                appId: "a1", idempotencyKey: "k1", requestHash: Data([1]),
                jobs: SendJobs {
                    made += 1
                    if made == 3 { throw Refused() }
                    return fixture.jobs(600, request: "r1", idPrefix: "b\(made)-")
                }, webhooks: [], response: { Data("ok".utf8) }, now: BatchedOutboxTests.Fixture.t0)
        }
        #expect(made == 3)
        #expect(try fixture.store.pushJobs(requestId: "r1").isEmpty)
        #expect(try fixture.store.pushJobCounts().pending == 0)
        #expect(try fixture.accept(fixture.jobs(2, request: "r2"), key: "k1") == .accepted(response: Data("ok".utf8)))
    }

    /// Whatever the batches, the store gets chunks of exactly its statement size, the last one
    /// shorter and none empty, every job once and in order; skipped-only sends say so.
    @Test func batchesAreHandedOnInChunksOfOneSize() throws {
        let fixture = try Fixture()
        let jobs = fixture.jobs(1_300)
        for sizes in [[1_300], [1, 511, 1, 787], [0, 0], [200, 200, 200, 200, 200, 200, 100], [512, 512, 276]] {
            var rest = jobs[...]
            var batches = sizes.map { size in
                defer { rest = rest.dropFirst(size) }
                return Array(rest.prefix(size))
            }[...]
            var chunks: [ArraySlice<PushJob>] = []
            let toSend = try SendJobs { batches.popFirst() }.forEachChunk(of: 512) { chunks.append($0) }
            let total = sizes.reduce(0, +)
            #expect(chunks.map(\.count) == Array(repeating: 512, count: total / 512) + (total % 512 == 0 ? [] : [total % 512]), "\(sizes)")
            #expect(chunks.flatMap { $0 }.map(\.id) == jobs.prefix(total).map(\.id), "\(sizes)")
            #expect(toSend == (total > 0), "\(sizes)")
        }
        var skippedOnly = fixture.jobs(3)
        for index in skippedOnly.indices { skippedOnly[index].skipped = true }
        #expect(try SendJobs(skippedOnly).forEachChunk(of: 2) { _ in } == false)
    }

    /// Claims of 1, 7 and 500 take the calls first, then the others by due time, each job once;
    /// finishes of 300 and of the rest end them all.
    @Test func claimsAndFinishesOfAnySizeTakeEachJobOnce() throws {
        let fixture = try Fixture()
        let jobs = fixture.jobs(700)
        _ = try fixture.accept(jobs, key: "k1")
        let now = Fixture.t0.addingTimeInterval(10)
        var claimed: [PushJob] = []
        for limit in [1, 7, 500, 500] {
            claimed += try fixture.store.claimPushJobs(limit: limit, lease: 60, now: now)
        }
        #expect(claimed.count == jobs.count)
        #expect(Set(claimed.map(\.id)).count == jobs.count)
        let calls = jobs.filter { $0.kind == .call }.count
        #expect(claimed.prefix(calls).allSatisfy { $0.kind == .call }, "calls first")
        #expect(claimed.allSatisfy { $0.attempts == 1 })
        try fixture.store.finishPushJobs(claimed.prefix(300).map { ($0.id, JobOutcome.delivered) }, now: now)
        #expect(try fixture.store.pushJobCounts() == OutboxCounts(pending: 0, inFlight: 400, delivered: 300, failed: 0))
        try fixture.store.finishPushJobs(claimed.dropFirst(300).map { ($0.id, JobOutcome.delivered) }, now: now)
        #expect(try fixture.store.pushJobCounts() == OutboxCounts(pending: 0, inFlight: 0, delivered: 700, failed: 0))
    }

    /// On SQLite the checkpointing thread copies a large send from the log into the database
    /// file (no commit does, and without it nothing would until the store closed), and the
    /// store reopened sees every job.
    @Test(.enabled(if: !TestDatabase.isPostgres, "the log is SQLite's"))
    func theLogIsCopiedIntoTheDatabaseOffTheCommit() async throws {
        let fixture = try Fixture()
        let path = fixture.database.sqlitePath
        let before = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        // ~7 MB of log: past the 1,000 pages (4 MB) that wake the checkpointing thread
        _ = try fixture.accept(fixture.jobs(10_000, padding: 400), key: "k1")
        let copied = await eventually {
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > before + 4_000_000
        }
        #expect(copied, "the database file grew from \(before) bytes by most of the send's ~7 MB")
        let reopened = try SQLiteStore(path: path, synchronousFull: false)
        #expect(try reopened.pushJobs(requestId: "r1").count == 10_000)
    }
}
