import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// `tokenRegisteredAt(appId:token:)` (issue 32): what the delivery engine reads when APNs answers
/// 410 with a timestamp, once per such answer. It used to read every token of the app to find
/// one; now it is one token's row through the primary key. On SQLite and (with
/// `PUSH_TEST_DATABASE_URL`) PostgreSQL.
@Suite struct TokenRegisteredAtTests {
    final class Fixture: @unchecked Sendable {
        // @unchecked: immutable.
        let directory = NSTemporaryDirectory() + "push-registered-" + UUID().uuidString
        let database: TestDatabase
        let store: any ServiceStore

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            database = try TestDatabase(directory: directory)
            store = try database.open()
            for app in ["a1", "a2"] {
                try store.createApp(AppRecord(id: app, name: "App", createdAt: Self.t0))
                for uid in ["u1", "u2"] { try store.createUser(UserRecord(appId: app, uid: uid, name: uid, createdAt: Self.t0)) }
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

        /// Registers `token` for `uid` of `app`, `offset` seconds after ``t0``.
        @discardableResult
        func register(_ token: String, app: String = "a1", uid: String = "u1", at offset: TimeInterval) throws -> PushTokenRecord {
            let time = Self.t0.addingTimeInterval(offset)
            return try store.registerToken(
                PushTokenRecord(
                    appId: app, uid: uid, token: token, platform: .apnsDevice, providerId: "p1", timezone: nil,
                    authTokenHash: Data([1]), authTokenHint: "h", createdAt: time, updatedAt: time), maxPerUser: -1)
        }
    }

    @Test func readsTheLastRegistrationOfOneTokenOfOneApp() throws {
        // Given tokens of two apps and two users, one registered again later and one moved
        let fixture = try Fixture()
        try fixture.register("tok1", at: 10)
        try fixture.register("tok2", uid: "u2", at: 20)
        try fixture.register("tok1", app: "a2", at: 30)
        try fixture.register("tok1", at: 40)
        try fixture.register("tok2", at: 50)
        let store = fixture.store

        // Then each answer is that token's last registration in that app, to the millisecond
        #expect(try store.tokenRegisteredAt(appId: "a1", token: "tok1") == Fixture.t0.addingTimeInterval(40))
        #expect(try store.tokenRegisteredAt(appId: "a1", token: "tok2") == Fixture.t0.addingTimeInterval(50))
        #expect(try store.tokenRegisteredAt(appId: "a2", token: "tok1") == Fixture.t0.addingTimeInterval(30))
        // Same as what the app's token list says
        let listed = try store.tokens(appId: "a1", uid: nil).first { $0.token == "tok1" }?.updatedAt
        #expect(try store.tokenRegisteredAt(appId: "a1", token: "tok1") == listed)

        // A token of another app, an unknown one, a deleted one: none
        #expect(try store.tokenRegisteredAt(appId: "a2", token: "tok2") == nil)
        #expect(try store.tokenRegisteredAt(appId: "a1", token: "nope") == nil)
        #expect(try store.tokenRegisteredAt(appId: "nope", token: "tok1") == nil)
        #expect(try store.deleteToken(appId: "a1", token: "tok1"))
        #expect(try store.tokenRegisteredAt(appId: "a1", token: "tok1") == nil)
        #expect(try store.tokenRegisteredAt(appId: "a2", token: "tok1") == Fixture.t0.addingTimeInterval(30))
    }

    /// On SQLite the plan is a search of the primary key on both of its columns, and the
    /// statement takes as many steps with 2,000 other tokens of the app as with 10 (the old
    /// closure read all of them).
    @Test(.enabled(if: !TestDatabase.isPostgres, "the plan is SQLite's"))
    func isOnePrimaryKeyLookupOnSQLite() throws {
        let fixture = try Fixture()
        let store = try #require(fixture.store as? SQLiteStore)
        let plan = try store.queryPlan(SQLiteStore.tokenRegisteredAtQuery)
        #expect(plan.count == 1 && plan[0].hasPrefix("SEARCH push_tokens") && plan[0].contains("(app_id=? AND token=?)"), "\(plan)")

        try fixture.register("target", at: 1)
        let values: [StoreValue] = [.text("a1"), .text("target")]
        var seq: Int64 = 100
        func addTokens(_ count: Int) throws {
            let rows = (0..<count).map { _ -> [StoreValue] in
                seq += 1
                return [
                    .text("a1"), .text("o\(seq)"), .text("u2"), .text("apns_ios_device"), .text("p1"), .null, .blob(Data([2])),
                    .text("h"), .int(0), .int(0), .int(seq), .null, .null, .null, .null, .null,
                ]
            }
            try store.importRows(table: .pushTokens, rows: rows)
        }
        try addTokens(10)
        let few = try store.virtualMachineSteps(SQLiteStore.tokenRegisteredAtQuery, values)
        try addTokens(2_000)
        let many = try store.virtualMachineSteps(SQLiteStore.tokenRegisteredAtQuery, values)
        #expect(few == many, "steps with 11 tokens: \(few), with 2,011: \(many)")
        #expect(try store.tokenRegisteredAt(appId: "a1", token: "target") == Fixture.t0.addingTimeInterval(1))
    }
}
