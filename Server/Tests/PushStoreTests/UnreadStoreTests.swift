import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// The unread counts of the badge the service counts (issue 30), on SQLite and (with
/// `PUSH_TEST_DATABASE_URL`) PostgreSQL: idempotent per message, only for users of the app,
/// removed by conversation, by message and all at once, kept with the app's badge default, and
/// exact under concurrent writers on two stores (two instances).
@Suite struct UnreadStoreTests {
    final class Fixture: @unchecked Sendable {
        // @unchecked: immutable.
        let directory = NSTemporaryDirectory() + "push-unread-" + UUID().uuidString
        let database: TestDatabase
        let store: any ServiceStore

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            database = try TestDatabase(directory: directory)
            store = try database.open()
            try store.createApp(AppRecord(id: "a1", name: "App", createdAt: Self.t0, badge: .auto))
            try store.createApp(AppRecord(id: "a2", name: "Other", createdAt: Self.t0))
            for app in ["a1", "a2"] {
                try store.createUser(UserRecord(appId: app, uid: "u1", name: "Ann", createdAt: Self.t0))
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    }

    static func message(_ id: String, in conversation: String, uid: String = "u1") -> UnreadMessage {
        UnreadMessage(uid: uid, conversationId: conversation, messageId: id)
    }

    @Test func countsOncePerMessageOnlyForUsersAndRemovesByConversationMessageAndAll() throws {
        let fixture = try Fixture()
        let store = fixture.store
        #expect(try store.app(id: "a1")?.badge == .auto)
        #expect(try store.app(id: "a2")?.badge == .caller)
        var totals = try store.addUnread(
            appId: "a1", messages: [Self.message("m1", in: "c1"), Self.message("m2", in: "c1"), Self.message("m1", in: "c2")],
            totalsOf: ["nobody"], now: Fixture.t0)
        #expect(totals == ["u1": 3, "nobody": 0])
        // Again (a retry), and for a uid that is no user: nothing more.
        totals = try store.addUnread(
            appId: "a1", messages: [Self.message("m1", in: "c1"), Self.message("m5", in: "c1", uid: "nobody")], totalsOf: [],
            now: Fixture.t0)
        #expect(totals == ["u1": 3, "nobody": 0])
        // Another app's user of the same uid is another count.
        #expect(try store.addUnread(appId: "a2", messages: [Self.message("m1", in: "c1")], totalsOf: [], now: Fixture.t0) == ["u1": 1])
        #expect(
            try store.unreadCounts(appId: "a1", uid: "u1")
                == UnreadCounts(conversations: [.init(conversationId: "c1", unread: 2), .init(conversationId: "c2", unread: 1)]))
        // A deletion: only where it was counted.
        #expect(
            try store.removeUnreadMessage(appId: "a1", conversationId: "c1", messageId: "m2", uids: ["u1", "nobody"], now: Date()) == [
                "u1": 2
            ])
        #expect(try store.removeUnreadMessage(appId: "a1", conversationId: "c1", messageId: "m2", uids: ["u1"], now: Date()).isEmpty)
        // A read of one conversation, then a reset.
        #expect(try store.removeUnread(appId: "a1", uid: "u1", conversationId: "c2", now: Date()) == (1, 1))
        #expect(try store.removeUnread(appId: "a1", uid: "u1", conversationId: "c2", now: Date()) == (0, 1))
        #expect(try store.removeUnread(appId: "a1", uid: "u1", conversationId: nil, now: Date()) == (1, 0))
        #expect(try store.unreadCounts(appId: "a1", uid: "u1").conversations.isEmpty)
        #expect(try store.unreadCounts(appId: "a2", uid: "u1").total == 1)
        // The app's default is kept by an update; deleting the user deletes their counts.
        var app = try #require(try store.app(id: "a2"))
        app.badge = .auto
        try store.updateApp(app)
        #expect(try store.app(id: "a2")?.badge == .auto)
        #expect(try store.deleteUser(appId: "a2", uid: "u1"))
        // a1's three rows stay, marked read: a send of one of them retried now counts nothing.
        #expect(try store.rowCount(table: .unreadMessages) == 3)
        #expect(try store.addUnread(appId: "a1", messages: [Self.message("m1", in: "c1")], totalsOf: [], now: Fixture.t0) == ["u1": 0])
        // The retention purge deletes the marks older than its cutoff, and nothing else.
        #expect(try store.purgeFinished(before: Date().addingTimeInterval(-3600), batchSize: 2).readMessages == 0)
        #expect(try store.purgeFinished(before: Date().addingTimeInterval(60), batchSize: 2).readMessages == 3)
        #expect(try store.rowCount(table: .unreadMessages) == 0)
    }

    /// Writers on two stores (two instances on one database) add messages of one user at once:
    /// each add's total is the count its own change left, so the totals are exactly 1…n.
    @Test func concurrentAddsOnTwoStoresEachSeeTheirOwnTotal() throws {
        let fixture = try Fixture()
        let stores = [fixture.store, try fixture.database.open()]
        let writers = 6
        let perWriter = 25
        let totals = Locked<[Int]>([])
        let failures = Locked<[String]>([])
        let group = DispatchGroup()
        for writer in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for index in 0..<perWriter {
                    do {
                        let message = Self.message("m\(writer)-\(index)", in: "c\(writer % 3)")
                        let added = try stores[writer % 2].addUnread(appId: "a1", messages: [message], totalsOf: [], now: Fixture.t0)
                        totals.withLock { $0.append(added["u1"] ?? -1) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(totals.withLock { $0 }.sorted() == Array(1...(writers * perWriter)))
        #expect(try fixture.store.unreadCounts(appId: "a1", uid: "u1").total == writers * perWriter)
    }
}
