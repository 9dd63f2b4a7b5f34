import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// `GET /notifications/push/v1/changes` (Contract/WIRE-CONTRACT.md §2): the edits, deletions and
/// reads of the user's conversations, paged after a cursor, purged with `--retention-days` and
/// then answered `truncated`. On SQLite, and on PostgreSQL with `PUSH_TEST_DATABASE_URL`.
@Suite struct ChangesFeedTests {
    let harness: Harness
    let bob: Harness.TestSession
    /// The service's clock when a test sets it (else the real one).
    let pinnedNow = Locked<Date?>(nil)

    init() async throws {
        harness = try await Harness.start(
            configure: { $0.rateLimitPerMinute = 0 }, clock: { [pinnedNow] in pinnedNow.withLock { $0 } ?? Date() })
        try await harness.makeApp()
        _ = try await harness.makeUser("alice")
        bob = try await harness.makeUser("bob")
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: bob)
    }

    func feed(_ session: Harness.TestSession, since: String?, limit: Int? = nil) async throws -> RawHTTP.Response {
        var query: [String] = []
        if let since { query.append("since=" + since) }
        if let limit { query.append("limit=\(limit)") }
        let path = "/notifications/push/v1/changes" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        return try await harness.client("GET", path, session: session)
    }

    func read(_ session: Harness.TestSession, _ receiver: String, unreadCount: Int? = nil) async throws {
        var body: [String: Any] = ["receiverType": "user", "receiver": receiver]
        if let unreadCount { body["unreadCount"] = unreadCount }
        #expect(try await harness.client("POST", "/notifications/push/v1/read", session: session, body).status == 200)
    }

    /// Every change after `since`, `limit` at a time, and the last cursor.
    func allChanges(_ session: Harness.TestSession, since: String, limit: Int) async throws -> ([[String: Any]], String, Int) {
        var cursor = since
        var changes: [[String: Any]] = []
        var pages = 0
        while true {
            let page = try await feed(session, since: cursor, limit: limit)
            #expect(page.status == 200, "\(page.json)")
            pages += 1
            let items = page.data["changes"] as? [[String: Any]] ?? []
            #expect(items.count <= limit)
            changes += items
            cursor = try #require(page.data["cursor"] as? String)
            #expect(page.data["truncated"] == nil)
            guard page.data["hasMore"] as? Bool == true else { return (changes, cursor, pages) }
            #expect(pages < 100)
        }
    }

    @Test func withoutSinceTheAnswerIsTheCursorOfNow() async throws {
        let first = try await feed(bob, since: nil)
        #expect(first.status == 200)
        #expect((first.data["changes"] as? [Any])?.isEmpty == true)
        #expect(first.data["hasMore"] as? Bool == false)
        let start = try #require(first.data["cursor"] as? String)
        try await read(bob, "alice")
        let now = try await feed(bob, since: nil)
        #expect((now.data["changes"] as? [Any])?.isEmpty == true, "a new installation starts after what happened before it")
        let later = try #require(now.data["cursor"] as? String)
        #expect(later != start)
        #expect((try await feed(bob, since: later).data["changes"] as? [Any])?.isEmpty == true)
        #expect((try await feed(bob, since: start).data["changes"] as? [Any])?.count == 1)
    }

    @Test func editsDeletionsAndReadsComeInOrderPageByPage() async throws {
        let start = try #require(try await feed(bob, since: nil).data["cursor"] as? String)
        try await harness.send(MessageActionTests.message())
        try harness.deliverPending()
        try await read(bob, "alice", unreadCount: 3)
        try await harness.send(MessageActionTests.message(MessageActionTests.edit))
        for index in 0..<4 { try await read(bob, "carol\(index)") }
        try await harness.send(MessageActionTests.message(MessageActionTests.deletion))
        try await read(bob, "alice")

        let (changes, cursor, pages) = try await allChanges(bob, since: start, limit: 2)
        #expect(pages == 4)
        try #require(changes.count == 8, "\(changes)")
        #expect(changes.map { $0["kind"] as? String ?? "" } == ["read", "edited", "read", "read", "read", "read", "deleted", "read"])
        #expect(changes[0]["conversationId"] as? String == "alice_user_bob")
        #expect(changes[0]["unreadCount"] as? Int == 3)
        #expect(changes[7]["unreadCount"] == nil, "no count given: none shown")
        let edited = changes[1]
        #expect(edited["messageId"] as? String == "1042")
        #expect(edited["notificationId"] as? String == CollapseIdTests.message1042)
        #expect(edited["title"] as? String == "Alice" && edited["body"] as? String == "See you at 6")
        #expect(edited["at"] as? Int == 1_732_900_060_000)
        let deleted = changes[6]
        #expect(deleted["messageId"] as? String == "1042" && deleted["title"] == nil && deleted["body"] == nil)
        #expect(deleted["at"] as? Int == 1_732_900_070_000)
        // Nothing new: the same cursor and no changes.
        let again = try await feed(bob, since: cursor)
        #expect((again.data["changes"] as? [Any])?.isEmpty == true)
        #expect(again.data["cursor"] as? String == cursor)
        #expect(again.data["hasMore"] as? Bool == false)
        // The default page holds them all.
        let whole = try await feed(bob, since: start)
        #expect((whole.data["changes"] as? [Any])?.count == 8 && whole.data["hasMore"] as? Bool == false)
    }

    @Test func anotherUsersChangesAreNotInTheFeed() async throws {
        let carol = try await harness.makeUser("carol")
        let erin = try await harness.makeUser("erin")
        try await harness.register("ca01phone", platform: "apns_ios_device", session: carol)
        try await harness.register("e0e0phone", platform: "apns_ios_device", session: erin)
        let start = try #require(try await feed(bob, since: nil).data["cursor"] as? String)
        // Carol reads; a message only Carol got is edited; Erin muted Bob, so his message to her
        // was never pushed to her: its deletion is not her change.
        try await read(carol, "alice")
        #expect(
            try await harness.client(
                "PUT", "/notifications/push/v1/preferences/mutes", session: erin, ["receiverType": "user", "receiver": "alice"]
            ).status == 200)
        try await harness.send(MessageActionTests.message(["id": "2001"], to: ["carol", "erin"]))
        try harness.deliverPending()
        try await harness.send(MessageActionTests.message(MessageActionTests.edit.merging(["id": "2001"]) { $1 }, to: ["bob", "carol"]))
        try await harness.send(MessageActionTests.message(MessageActionTests.deletion.merging(["id": "2001"]) { $1 }, to: ["erin"]))

        #expect((try await feed(bob, since: start).data["changes"] as? [Any])?.isEmpty == true)
        #expect((try await feed(erin, since: start).data["changes"] as? [Any])?.isEmpty == true)
        let carols = try await feed(carol, since: start).data["changes"] as? [[String: Any]] ?? []
        #expect(carols.map { $0["kind"] as? String ?? "" } == ["read", "edited"])
    }

    @Test func retentionPurgesOldChangesAndTheFeedSaysTruncated() async throws {
        let carol = try await harness.makeUser("carol")
        let start = try #require(try await feed(bob, since: nil).data["cursor"] as? String)
        let now = Date()
        pinnedNow.withLock { $0 = now.addingTimeInterval(-10 * 86_400) }
        try await read(bob, "alice", unreadCount: 1)
        try await read(carol, "alice")
        let afterOld = try #require(try await feed(bob, since: nil).data["cursor"] as? String)
        pinnedNow.withLock { $0 = nil }
        try await read(bob, "alice", unreadCount: 0)
        let carolsCursor = try #require(try await feed(carol, since: nil).data["cursor"] as? String)

        // A purge with a seven-day window, as the retention worker runs it.
        let counts = try harness.store.purgeFinished(before: now.addingTimeInterval(-7 * 86_400), batchSize: 1)
        #expect(counts.changes == 2)

        // From before the purged change: truncated, with what is left.
        let old = try await feed(bob, since: start)
        #expect(old.data["truncated"] as? Bool == true)
        let left = old.data["changes"] as? [[String: Any]] ?? []
        #expect(left.map { $0["unreadCount"] as? Int } == [0])
        // From after it: complete.
        let recent = try await feed(bob, since: afterOld)
        #expect(recent.data["truncated"] == nil)
        #expect((recent.data["changes"] as? [Any])?.count == 1)
        // Carol's purged change does not truncate another cursor of hers taken after it.
        #expect(try await feed(carol, since: carolsCursor).data["truncated"] == nil)
        #expect(try await feed(carol, since: start).data["truncated"] as? Bool == true)
        // Nothing older is left: a second purge deletes nothing.
        #expect(try harness.store.purgeFinished(before: now.addingTimeInterval(-7 * 86_400), batchSize: 10).changes == 0)
    }

    @Test func aDeletedUsersChangesGoWithThem() async throws {
        try await read(bob, "alice")
        #expect(try await harness.admin("DELETE", "/users/bob", appId: "app1").status == 200)
        #expect(try harness.store.rowCount(table: .pushChanges) == 0)
        // A change for a user who is gone is not recorded (and does not fail the send).
        let answer = try await harness.send(MessageActionTests.message(MessageActionTests.edit))
        #expect((answer.data["recipients"] as? [[String: Any]])?.first?["reason"] as? String == "message-unknown")
    }

    @Test func badCursorsAndLimitsAreRefusedAndAForeignCursorStartsOver() async throws {
        for (since, limit, field) in [
            ("abc", nil, "since"), ("-1", nil, "since"), ("", nil, "since"), ("1e3", nil, "since"),
            ("99999999999999999999", nil, "since"), ("0", 0, "limit"), ("0", 501, "limit"),
        ] as [(String, Int?, String)] {
            let answer = try await feed(bob, since: since, limit: limit)
            #expect(answer.status == 400, "\(since) \(String(describing: limit))")
            let details = (answer.json["error"] as? [String: Any])?["details"] as? [String: String] ?? [:]
            #expect(details[field] != nil, "\(answer.json)")
        }
        let notANumber = try await harness.client("GET", "/notifications/push/v1/changes?since=0&limit=ten", session: bob)
        #expect(notANumber.status == 400)
        try await read(bob, "alice")
        // A cursor this store never gave (another database's): start over at now, truncated.
        let foreign = try await feed(bob, since: "900000000000")
        #expect(foreign.status == 200)
        #expect(foreign.data["truncated"] as? Bool == true)
        #expect((foreign.data["changes"] as? [Any])?.isEmpty == true)
        #expect(foreign.data["cursor"] as? String == (try await feed(bob, since: nil)).data["cursor"] as? String)
    }

    /// Positions are in commit order on both stores: a reader paging while writers on two stores
    /// (two instances, on PostgreSQL) record changes at once never passes over one.
    @Test func aReaderPagingDuringConcurrentWritesMissesNothing() throws {
        let directory = NSTemporaryDirectory() + "push-changes-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try TestDatabase(directory: directory)
        let stores = [try database.open(), try database.open()]
        let t0 = Date()
        try stores[0].createApp(AppRecord(id: "a1", name: "App", createdAt: t0))
        try stores[0].createUser(UserRecord(appId: "a1", uid: "u1", name: "U", createdAt: t0))
        let writers = 6
        let perWriter = 60
        let done = Locked(0)
        let seen = Locked<[String]>([])
        let failures = Locked<[String]>([])
        let group = DispatchGroup()
        for writer in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                defer {
                    done.withLock { $0 += 1 }
                    group.leave()
                }
                for index in 0..<perWriter {
                    let change = PushChange(
                        appId: "a1", uid: "u1", kind: .read, conversationId: "c-\(writer)-\(index)", at: t0, createdAt: t0)
                    do { try stores[writer % 2].record(changes: [change], pushJobs: []) } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            var cursor: Int64 = 0
            // Page until the writers are done, then once more to the end.
            var finished = false
            while true {
                let over = done.withLock { $0 } == writers
                do {
                    let page = try stores[1].changes(appId: "a1", uid: "u1", after: cursor, limit: 7)
                    seen.withLock { $0 += page.entries.map(\.change.conversationId) }
                    cursor = page.entries.last?.position ?? cursor
                    if finished && !page.hasMore { return }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    return
                }
                finished = over
            }
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let all = seen.withLock { $0 }
        #expect(all.count == writers * perWriter, "the reader saw \(all.count) of \(writers * perWriter)")
        #expect(Set(all).count == all.count, "none twice")
    }
}
