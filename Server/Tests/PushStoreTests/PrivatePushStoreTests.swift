import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// What private push (issue 28) keeps in the stores, on SQLite and (with
/// `PUSH_TEST_DATABASE_URL`) PostgreSQL: each app's privacy settings, each token's Web Push keys
/// (replaced, or cleared, by every registration), each job's plaintext and trimmed fields, and
/// the keys the sender reads in one query.
@Suite struct PrivatePushStoreTests {
    /// A fresh database for one test, and its directory (removed at the end).
    final class Fixture: @unchecked Sendable {
        // @unchecked: immutable.
        let directory = NSTemporaryDirectory() + "push-private-" + UUID().uuidString
        let database: TestDatabase
        let store: any ServiceStore

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            database = try TestDatabase(directory: directory)
            store = try database.open()
            try store.createApp(AppRecord(id: "a1", name: "App", createdAt: Self.t0))
            try store.createApp(AppRecord(id: "a2", name: "Other", createdAt: Self.t0))
            for app in ["a1", "a2"] {
                try store.createUser(UserRecord(appId: app, uid: "u1", name: "Ann", createdAt: Self.t0))
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

        func token(
            _ token: String, app: String = "a1", platform: TokenPlatform = .apnsDevice, keys: StoredEncryptionKeys?
        )
            -> PushTokenRecord
        {
            PushTokenRecord(
                appId: app, uid: "u1", token: token, platform: platform, providerId: "p1", timezone: nil, authTokenHash: Data([1]),
                authTokenHint: "h", createdAt: Self.t0, updatedAt: Self.t0, encryption: keys)
        }
    }

    static func keys(_ seed: UInt8) -> StoredEncryptionKeys {
        StoredEncryptionKeys(
            p256dh: Data([4] + Array(repeating: seed, count: 64)), sealedAuth: Data([1, 0, seed, 255] + Array(repeating: seed, count: 40)))
    }

    @Test func appPrivacyAndPlaceholdersRoundTrip() throws {
        let fixture = try Fixture()
        let store = fixture.store
        // A new app is standard with no placeholders of its own
        #expect(try store.app(id: "a1")?.privacy == .standard)
        #expect(try store.app(id: "a1")?.privatePlaceholder == nil)
        // Created private with placeholders
        let created = AppRecord(
            id: "a3", name: "Private", createdAt: Fixture.t0, privacy: .private, privatePlaceholder: "Nouveau message",
            privateCallPlaceholder: "Appel entrant")
        try store.createApp(created)
        #expect(try store.app(id: "a3") == created)
        // Updated: the mode and both placeholders change, and go back
        var app = try #require(try store.app(id: "a1"))
        app.privacy = .private
        app.privatePlaceholder = "New chat"
        app.privateCallPlaceholder = "Call"
        try store.updateApp(app)
        #expect(try store.app(id: "a1") == app)
        #expect(try store.apps().map(\.privacy) == [.private, .standard, .private])
        app.privacy = .standard
        app.privatePlaceholder = nil
        app.privateCallPlaceholder = nil
        try store.updateApp(app)
        #expect(try store.app(id: "a1") == app)
    }

    @Test func tokenKeysAreStoredAndAReRegistrationWithoutThemClearsThem() throws {
        let fixture = try Fixture()
        let store = fixture.store
        let registered = try store.registerToken(fixture.token("t1", keys: Self.keys(1)), maxPerUser: 10)
        #expect(registered.encryption == Self.keys(1))
        #expect(try store.tokens(appId: "a1", uid: "u1").map(\.encryption) == [Self.keys(1)])
        // New keys replace the old ones
        #expect(try store.registerToken(fixture.token("t1", keys: Self.keys(2)), maxPerUser: 10).encryption == Self.keys(2))
        // A registration without keys clears them: the device no longer has them
        let cleared = try store.registerToken(fixture.token("t1", keys: nil), maxPerUser: 10)
        #expect(cleared.encryption == nil)
        #expect(try store.tokens(appId: "a1", uid: nil).map(\.encryption) == [nil])
        #expect(try store.encryptionKeys(appId: "a1", tokens: ["t1"]).isEmpty)
    }

    @Test func encryptionKeysReturnsOnlyTheKeyedTokensOfTheApp() throws {
        let fixture = try Fixture()
        let store = fixture.store
        _ = try store.registerToken(fixture.token("dev", keys: Self.keys(1)), maxPerUser: 10)
        _ = try store.registerToken(fixture.token("voip", platform: .apnsVoIP, keys: Self.keys(2)), maxPerUser: 10)
        _ = try store.registerToken(fixture.token("fcm", platform: .fcm, keys: Self.keys(3)), maxPerUser: 10)
        _ = try store.registerToken(fixture.token("plain", keys: nil), maxPerUser: 10)
        // The same token string in another app, with other keys
        _ = try store.registerToken(fixture.token("dev", app: "a2", keys: Self.keys(9)), maxPerUser: 10)
        let found = try store.encryptionKeys(appId: "a1", tokens: ["dev", "voip", "fcm", "plain", "unknown", "dev"])
        #expect(found == ["dev": Self.keys(1), "voip": Self.keys(2), "fcm": Self.keys(3)])
        #expect(try store.encryptionKeys(appId: "a2", tokens: ["dev", "voip"]) == ["dev": Self.keys(9)])
        #expect(try store.encryptionKeys(appId: "a1", tokens: []).isEmpty)
        // Tokens with quotes and backslashes are found as they are
        let odd = "t\"o\\k'en"
        _ = try store.registerToken(fixture.token(odd, keys: Self.keys(4)), maxPerUser: 10)
        #expect(try store.encryptionKeys(appId: "a1", tokens: [odd]) == [odd: Self.keys(4)])
        // Many tokens in one call
        let many = (0..<2_000).map { "none-\($0)" } + ["dev"]
        #expect(try store.encryptionKeys(appId: "a1", tokens: many) == ["dev": Self.keys(1)])
    }

    @Test func privateJobsKeepTheirPlaintextAndTrimmedFieldsEverywhereTheyAreRead() throws {
        let fixture = try Fixture()
        let store = fixture.store
        func job(_ id: String, _ privatePush: PrivatePush?, request: String = "r1") -> PushJob {
            var job = PushJob.test(id, requestId: request, token: "tok-" + id, notBefore: Fixture.t0, createdAt: Fixture.t0)
            job.privatePush = privatePush
            return job
        }
        let plaintext = Data("{\"aps\":{\"alert\":{\"title\":\"Ann\",\"body\":\"Hi\"}},\"sender\":\"u1\"}".utf8)
        let jobs = [
            job("j1-standard", nil),
            job("j2-private", PrivatePush(plaintext: plaintext)),
            job("j3-trimmed", PrivatePush(plaintext: Data([0, 1, 2, 255]), trimmed: ["message", "custom", "body"])),
        ]
        _ = try store.acceptSend(
            appId: "a1", idempotencyKey: "k1", requestHash: Data([1]), jobs: jobs, webhooks: [], response: Data(), now: Fixture.t0)
        let enqueued = job("j4-enqueued", PrivatePush(plaintext: plaintext, trimmed: ["custom"]), request: "r2")
        try store.enqueue(webhooks: [], pushJobs: [enqueued])
        // The listing of a request, the whole-table read (the export) and a claim all see them
        #expect(try store.pushJobs(requestId: "r1").map(\.privatePush) == jobs.map(\.privatePush))
        #expect(try store.pushJobs(requestId: "r2").map(\.privatePush) == [enqueued.privatePush])
        #expect(try store.allPushJobs().map(\.privatePush) == (jobs + [enqueued]).map(\.privatePush))
        let claimed = try store.claimPushJobs(limit: 10, lease: 30, now: Fixture.t0.addingTimeInterval(1), excluding: [])
        #expect(Dictionary(uniqueKeysWithValues: claimed.map { ($0.id, $0.privatePush) }).count == 4)
        for job in claimed {
            #expect(job.privatePush == (jobs + [enqueued]).first { $0.id == job.id }?.privatePush, "\(job.id)")
        }
    }
}

/// A database of schema 12 with an app, a token and jobs: migration 13 keeps them, with the
/// defaults of the new columns (standard, no keys, no private plaintext).
@Suite struct PrivatePushMigrationTests {
    static let schema12Rows = """
        INSERT INTO apps (id, name, created_at, default_apns_provider_id) VALUES ('a1', 'A1', 0, 'p1');
        INSERT INTO users (app_id, uid, name, created_at) VALUES ('a1', 'u1', 'Ann', 0);
        INSERT INTO push_tokens (app_id, token, uid, platform, provider_id, auth_token_hash, auth_token_hint, created_at, updated_at, seq)
            VALUES ('a1', 'tok', 'u1', 'apns_ios_device', 'p1', 'h', 'h', 0, 0, 1);
        INSERT INTO push_jobs (id, app_id, request_id, uid, token, platform, kind, provider_id, payload, push_type, priority,
            expiration, topic_suffix, state, attempts, not_before, created_at)
            VALUES ('j1', 'a1', 'r1', 'u1', 'tok', 'apns_ios_device', 'chat', 'p1', '{}', 'alert', 10, 0, '', 'delivered', 1, 0, 0);
        """

    static func expectMigrated(_ store: any ServiceStore) throws {
        let app = try #require(try store.app(id: "a1"))
        #expect(app.name == "A1" && app.defaultAPNsProviderId == "p1")
        #expect(app.privacy == .standard && app.privatePlaceholder == nil && app.privateCallPlaceholder == nil)
        let token = try #require(try store.tokens(appId: "a1", uid: "u1").first)
        #expect(token.token == "tok" && token.encryption == nil)
        #expect(try store.encryptionKeys(appId: "a1", tokens: ["tok"]).isEmpty)
        let job = try #require(try store.pushJobs(requestId: "r1").first)
        #expect(job.id == "j1" && job.payload == Data("{}".utf8) && job.privatePush == nil)
    }

    @Test func migratingASQLiteDatabaseFromSchema12KeepsItsRows() throws {
        let path = NSTemporaryDirectory() + "push-private-" + UUID().uuidString + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        #expect(try SQLiteStore.migrate(path: path, to: 12) == 12)
        _ = try SQLiteFile.execute(path: path, Self.schema12Rows)
        let store = try SQLiteStore(path: path)
        #expect(store.schemaVersion == 22)
        try Self.expectMigrated(store)
    }

    @Test(.enabled(if: PGTest.url != nil, "needs PUSH_TEST_DATABASE_URL"))
    func migratingAPostgreSQLDatabaseFromSchema12KeepsItsRows() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        #expect(try PostgresStore.migrate(url: schema.url, to: 12) == 12)
        try schema.psql(
            Self.schema12Rows.replacingOccurrences(of: "'h', 'h'", with: "'\\x68', 'h'")
                .replacingOccurrences(of: "'p1', '{}', 'alert'", with: "'p1', '\\x7b7d', 'alert'"))
        let store = try schema.open(poolSize: 1)
        defer { store.close() }
        #expect(store.schemaVersion == 22)
        try Self.expectMigrated(store)
        // The view of job rows has the new columns
        #expect(try schema.psql("SELECT count(*) FROM push_job_rows WHERE private_plaintext IS NULL AND trimmed IS NULL") == "1")
    }
}
