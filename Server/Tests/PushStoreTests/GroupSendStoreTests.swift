import Foundation
import PushCore
import PushStore
import PushTestSupport
import ServerSupport
import Testing

/// The store side of group sends expanded in the background (issue 31), on SQLite and (with
/// `PUSH_TEST_DATABASE_URL`) PostgreSQL, with two stores on one database as two instances: the
/// members taken at acceptance, one holder of a send at a time, a batch stored only where its
/// cursor was read (never twice), the expansion taken over when a lease runs out, and the
/// retention purge.
@Suite struct GroupSendStoreTests {
    final class Fixture: @unchecked Sendable {
        // @unchecked: immutable.
        let directory = NSTemporaryDirectory() + "push-group-sends-" + UUID().uuidString
        let database: TestDatabase
        /// Two stores on one database: two instances.
        let stores: [any ServiceStore]

        init(members: [String]) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            database = try TestDatabase(directory: directory)
            stores = [try database.open(), try database.open()]
            try stores[0].createApp(AppRecord(id: "a1", name: "App", createdAt: Self.t0))
            for start in stride(from: 0, to: members.count, by: 5_000) {
                _ = try stores[0].setGroupMembers(
                    appId: "a1", guid: "team", uids: Array(members[start..<min(start + 5_000, members.count)]), replace: false,
                    now: Self.t0)
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

        /// Accepts a group send of `team` (key `key`) on the first store, `second` seconds after t0.
        func accept(_ id: String, sender: String? = nil, key: String? = nil, second: Double = 0) throws -> SendAcceptance {
            try stores[0].acceptGroupSend(
                GroupSend(
                    id: id, appId: "a1", guid: "team", request: Data("{\"id\":\"\(id)\"}".utf8),
                    createdAt: Self.t0.addingTimeInterval(second)),
                sender: sender, idempotencyKey: key ?? id, requestHash: Data(id.utf8), now: Self.t0
            ) { members in Data("{\"members\":\(members)}".utf8) }
        }
    }

    /// One job per member of a batch, as the worker makes them.
    static func jobs(_ batch: GroupSendBatch) -> [PushJob] {
        batch.uids.map { uid in
            PushJob.test(batch.id + "/" + uid, requestId: batch.id, uid: uid, token: "tok-" + uid, createdAt: Fixture.t0)
        }
    }

    /// Claims with `store` and stores batches of `size` until the send is done or the store
    /// loses it; returns the batches it stored.
    static func expand(_ store: any ServiceStore, size: Int, lease: TimeInterval = 60, now: Date = Fixture.t0) throws -> Int {
        var stored = 0
        while let send = try store.claimGroupSend(lease: lease, now: now) {
            let uids = try store.groupSendMembers(id: send.id, after: send.cursor, limit: size)
            let batch = GroupSendBatch(id: send.id, appId: send.appId, after: send.cursor, uids: uids)
            guard try store.commitGroupSendBatch(batch, lease: lease, now: now, build: { _ in jobs(batch) }) else { return stored }
            stored += 1
        }
        return stored
    }

    @Test func membersAreTakenAtAcceptanceAndABatchIsStoredOnlyWhereItsCursorWasRead() throws {
        let members = (0..<25).map { String(format: "u%02d", $0) }
        let fixture = try Fixture(members: members)
        let (a, b) = (fixture.stores[0], fixture.stores[1])
        #expect(try fixture.accept("s1", sender: "u03") == .accepted(response: Data("{\"members\":24}".utf8)))
        // The same key again: the first answer, nothing taken twice; an unknown group: notFound.
        #expect(try fixture.accept("s1-again", key: "s1") == .keyReused)
        #expect(
            try a.acceptGroupSend(
                GroupSend(id: "s1-replay", appId: "a1", guid: "team", request: Data(), createdAt: Fixture.t0), sender: nil,
                idempotencyKey: "s1", requestHash: Data("s1".utf8), now: Fixture.t0, response: { _ in Data() })
                == .replayed(response: Data("{\"members\":24}".utf8)))
        #expect(throws: StoreError.notFound) {
            try a.acceptGroupSend(
                GroupSend(id: "s2", appId: "a1", guid: "nope", request: Data(), createdAt: Fixture.t0), sender: nil, idempotencyKey: "s2",
                requestHash: Data(), now: Fixture.t0, response: { _ in Data() })
        }
        #expect(try a.rowCount(table: .pushGroupSends) == 1)
        // A member added after the acceptance is not in the send.
        _ = try a.setGroupMembers(appId: "a1", guid: "team", uids: ["u99"], replace: false, now: Fixture.t0)
        #expect(try a.groupSendMembers(id: "s1", after: "u20", limit: 10) == ["u21", "u22", "u23", "u24"])

        // A holds the send; B, another live instance, cannot take it while the lease runs.
        let held = try #require(try a.claimGroupSend(lease: 60, now: Fixture.t0))
        #expect(held.id == "s1" && held.members == 24 && held.cursor == nil && held.state == .expanding)
        #expect(try b.claimGroupSend(lease: 60, now: Fixture.t0.addingTimeInterval(30)) == nil)
        let first = GroupSendBatch(
            id: "s1", appId: "a1", after: nil, uids: try a.groupSendMembers(id: "s1", after: nil, limit: 10))
        #expect(first.uids == ["u00", "u01", "u02", "u04", "u05", "u06", "u07", "u08", "u09", "u10"], "uid order, sender left out")
        #expect(try a.commitGroupSendBatch(first, lease: 60, now: Fixture.t0, build: { _ in Self.jobs(first) }))
        // The same batch again (a retry of a commit that went through): its cursor moved, nothing stored.
        #expect(try !a.commitGroupSendBatch(first, lease: 60, now: Fixture.t0, build: { _ in Self.jobs(first) }))
        // A's lease runs out (it hangs): B takes the send over at the cursor; A's late batch is refused.
        let taken = try #require(try b.claimGroupSend(lease: 60, now: Fixture.t0.addingTimeInterval(120)))
        #expect(taken.cursor == "u10" && taken.done == 10 && taken.jobs == 10)
        let late = GroupSendBatch(id: "s1", appId: "a1", after: "u10", uids: try a.groupSendMembers(id: "s1", after: "u10", limit: 10))
        #expect(try !a.commitGroupSendBatch(late, lease: 60, now: Fixture.t0.addingTimeInterval(121), build: { _ in Self.jobs(late) }))
        #expect(try Self.expand(b, size: 10, now: Fixture.t0.addingTimeInterval(122)) == 2)
        let done = try #require(try a.groupSend(appId: "a1", id: "s1"))
        #expect(done.state == .done && done.done == 24 && done.jobs == 24 && done.cursor == "u24" && done.finishedAt != nil)
        #expect(try a.claimGroupSend(lease: 60, now: Fixture.t0.addingTimeInterval(500)) == nil)
        let uids = try a.pushJobs(requestId: "s1").map(\.uid)
        #expect(uids.count == 24 && Set(uids) == Set(members).subtracting(["u03"]), "every member once, the sender never")
        #expect(try a.groupSend(appId: "other", id: "s1") == nil)
    }

    /// Two instances expanding at once, with leases that run out all the time (each store takes
    /// the send from the other between batches), still store every member exactly once.
    @Test func twoInstancesRacingForOneSendStoreEveryMemberOnce() throws {
        let members = (0..<3_000).map { String(format: "m%04d", $0) }
        let fixture = try Fixture(members: members)
        _ = try fixture.accept("race")
        let failures = Locked<[String]>([])
        let stores = fixture.stores
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let store = stores[worker % 2]
            do {
                // A lease of a millisecond: whoever asks next may take the send over.
                while try store.groupSend(appId: "a1", id: "race")?.state == .expanding {
                    _ = try Self.expand(store, size: 37, lease: 0.001, now: Date())
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let send = try #require(try stores[0].groupSend(appId: "a1", id: "race"))
        #expect(send.state == .done && send.done == 3_000 && send.jobs == 3_000)
        let uids = try stores[1].pushJobs(requestId: "race").map(\.uid)
        #expect(uids.count == 3_000 && Set(uids).count == 3_000, "no member twice")
    }

    /// A send that cannot be expanded ends `failed`; a finished send (and the members it was
    /// taken for) is purged after the retention period, one still expanding never.
    @Test func failedSendsEndAndFinishedOnesArePurgedWithTheirMembers() throws {
        let fixture = try Fixture(members: (0..<30).map { "u\($0)" })
        let store = fixture.stores[0]
        _ = try fixture.accept("finished")
        _ = try fixture.accept("broken", second: 1)
        _ = try fixture.accept("running", second: 2)
        // The oldest first.
        let oldest = try #require(try store.claimGroupSend(lease: 60, now: Fixture.t0))
        #expect(oldest.id == "finished")
        let batch = GroupSendBatch(
            id: "finished", appId: "a1", after: nil, uids: try store.groupSendMembers(id: "finished", after: nil, limit: 100))
        #expect(try store.commitGroupSendBatch(batch, lease: 60, now: Fixture.t0, build: { _ in Self.jobs(batch) }))
        try store.failGroupSend(id: "broken", reason: "cannot read", now: Fixture.t0)
        let broken = try #require(try store.groupSend(appId: "a1", id: "broken"))
        #expect(broken.state == .failed && broken.lastError == "cannot read")
        #expect(try store.claimGroupSend(lease: 60, now: Fixture.t0)?.id == "running")
        #expect(try store.rowCount(table: .pushGroupSendMembers) == 90)
        #expect(try store.purgeFinished(before: Fixture.t0, batchSize: 7).groupSends == 0, "finished at the cutoff: kept")
        let purged = try store.purgeFinished(before: Fixture.t0.addingTimeInterval(1), batchSize: 7)
        #expect(purged.groupSends == 2)
        #expect(try store.rowCount(table: .pushGroupSends) == 1)
        #expect(try store.rowCount(table: .pushGroupSendMembers) == 30)
        #expect(try store.groupSend(appId: "a1", id: "running")?.state == .expanding)
        // Deleting the app deletes its sends and their members.
        #expect(try store.deleteApp(id: "a1"))
        #expect(try store.rowCount(table: .pushGroupSends) == 0 && store.rowCount(table: .pushGroupSendMembers) == 0)
    }
}

/// Two PostgreSQL instances: a send whose holder's store is gone (closed, or its process
/// killed: its advisory lock is free) is taken over at once, long before its lease runs out.
@Suite(.enabled(if: PGTest.isConfigured, "PUSH_TEST_DATABASE_URL is not set"))
struct PostgresGroupSendTests {
    @Test func aSendOfAClosedStoreIsTakenOverAtOnce() async throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let (a, b) = (try schema.open(poolSize: 2), try schema.open(poolSize: 2))
        defer { b.close() }
        let t0 = GroupSendStoreTests.Fixture.t0
        try a.createApp(AppRecord(id: "a1", name: "App", createdAt: t0))
        _ = try a.setGroupMembers(appId: "a1", guid: "team", uids: ["u1", "u2"], replace: true, now: t0)
        _ = try a.acceptGroupSend(
            GroupSend(id: "s1", appId: "a1", guid: "team", request: Data(), createdAt: t0), sender: nil, idempotencyKey: "k",
            requestHash: Data(), now: t0, response: { _ in Data() })
        #expect(try a.claimGroupSend(lease: 3_600, now: t0)?.id == "s1")
        #expect(try b.claimGroupSend(lease: 3_600, now: t0) == nil, "A lives: its lease holds")
        a.close()
        // The server ends the closed store's session (and its lock) a moment after it hangs up;
        // then B takes the send over, an hour before A's lease would have run out.
        var taken: GroupSend?
        _ = try await eventually(timeout: 10) {
            taken = try b.claimGroupSend(lease: 3_600, now: t0)
            return taken != nil
        }
        #expect(taken?.id == "s1", "A is gone: B takes over")
    }
}
