import Foundation
import HTTPServer
import PushCore
import PushMocks
import PushService
import PushStore
import PushTestSupport
import Testing

/// `StoreLocation` (what `--database` and `migrate-store` read): parsing, password masking,
/// telling two spellings of one store apart.
@Suite struct StoreLocationTests {
    @Test func parsesURLsSQLitePrefixesAndPaths() throws {
        #expect(try StoreLocation.parse("postgres://push:pw@db:5432/push") == .postgres(url: "postgres://push:pw@db:5432/push"))
        #expect(try StoreLocation.parse("postgresql://db/push?sslmode=require") == .postgres(url: "postgresql://db/push?sslmode=require"))
        #expect(try StoreLocation.parse("  POSTGRES://db/push ") == .postgres(url: "POSTGRES://db/push"))
        #expect(try StoreLocation.parse("sqlite:/var/lib/push/push.sqlite") == .sqlite(path: "/var/lib/push/push.sqlite"))
        #expect(try StoreLocation.parse("sqlite:///var/lib/push/push.sqlite") == .sqlite(path: "/var/lib/push/push.sqlite"))
        #expect(try StoreLocation.parse("sqlite:data/push.sqlite") == .sqlite(path: "data/push.sqlite"))
        #expect(try StoreLocation.parse("/var/lib/push/push.sqlite") == .sqlite(path: "/var/lib/push/push.sqlite"))
        #expect(try StoreLocation.parse("data/push.sqlite") == .sqlite(path: "data/push.sqlite"))
        #expect(throws: StoreLocation.ParseError.self) { try StoreLocation.parse("") }
        #expect(throws: StoreLocation.ParseError.self) { try StoreLocation.parse("sqlite:") }
        do {
            _ = try StoreLocation.parse("mysql://root:hunter2@db/push")
            Issue.record("mysql:// was accepted")
        } catch {
            #expect("\(error)".contains("unsupported store \"mysql\""))
            #expect(!"\(error)".contains("hunter2"), "the refusal masks the password: \(error)")
        }
        #expect(try StoreLocation.parse("postgres://db/push").kind == "PostgreSQL")
        #expect(try StoreLocation.parse("/p.sqlite").kind == "SQLite")
    }

    @Test func passwordsAreMaskedInAnyMessage() throws {
        let cases: [(String, String)] = [
            ("postgres://push:s3cr%40t@db:5432/push", "postgres://push:***@db:5432/push"),
            ("postgres://push:p@ss@db/push", "postgres://push:***@db/push"),
            ("postgresql://push@db/push", "postgresql://push@db/push"),
            ("postgres://db/push?password=xyz&sslmode=require", "postgres://db/push?password=***&sslmode=require"),
            ("postgres://db/push?sslmode=require&PASSWORD=xyz", "postgres://db/push?sslmode=require&PASSWORD=***"),
            (
                "cannot copy postgres://a:one@h1/d to postgres://b:two@h2:6000/e: refused",
                "cannot copy postgres://a:***@h1/d to postgres://b:***@h2:6000/e: refused"
            ),
            ("host=db user=push password=abc dbname=push", "host=db user=push password=*** dbname=push"),
            ("postgres://push:pw@[::1]:5432/push", "postgres://push:***@[::1]:5432/push"),
            ("no url here: passwords=3", "no url here: passwords=3"),
        ]
        for (text, expected) in cases { #expect(StoreLocation.redact(text) == expected) }
        let location = try StoreLocation.parse("postgres://push:hunter2@db/push")
        #expect("\(location)" == "postgres://push:***@db/push")
        #expect(try StoreLocation.parse("sqlite:/p").description == "sqlite:/p")
    }

    @Test func recognisesTheSameStore() throws {
        let directory = NSTemporaryDirectory() + "push-location-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = FileManager.default.createFile(atPath: directory + "/a.sqlite", contents: Data())
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.sqlite", withDestinationPath: directory + "/a.sqlite")
        let a = StoreLocation.sqlite(path: directory + "/a.sqlite")
        #expect(a.isSameStore(as: .sqlite(path: directory + "/sub/../a.sqlite")))
        #expect(a.isSameStore(as: .sqlite(path: directory + "/link.sqlite")))
        #expect(!a.isSameStore(as: .sqlite(path: directory + "/b.sqlite")))
        #expect(
            StoreLocation.sqlite(path: directory + "/new.sqlite").isSameStore(as: .sqlite(path: directory + "/sub/../new.sqlite")),
            "a file that does not exist yet is compared by its resolved path")
        let pg = try StoreLocation.parse("postgres://push:pw@DB:5432/push")
        #expect(pg.isSameStore(as: try StoreLocation.parse("postgresql://other@db/push")))
        #expect(!pg.isSameStore(as: try StoreLocation.parse("postgres://push@db/other")))
        #expect(!pg.isSameStore(as: try StoreLocation.parse("postgres://push@db:5433/push")))
        #expect(!pg.isSameStore(as: try StoreLocation.parse("postgres://push@db/push?options=-csearch_path%3Dx")))
        #expect(!pg.isSameStore(as: a))
    }

    @Test func opensSQLite() throws {
        let path = NSTemporaryDirectory() + "push-location-\(UUID().uuidString).sqlite"
        defer { MigrateStoreTests.removeSQLite(path) }
        let store = try StoreLocation.parse("sqlite:" + path).open(logger: .silent)
        #expect(try store.rowCount(table: .apps) == 0)
        #expect(FileManager.default.fileExists(atPath: path))
    }
}

/// `push-server migrate-store`, run as an operator runs it (the built binary) on the store of
/// a stopped service that holds one of everything, then a service started on the copy: it
/// answers as the old one did.
@Suite(.serialized) struct MigrateStoreTests {
    static let adminKey = "migrate-admin-key-0123456789"
    static let secretKey = Data(repeating: 11, count: 32).base64EncodedString()

    static func removeSQLite(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func helpAndUsageErrors() async throws {
        let overview = try await ServerProcess.run(["--help"])
        #expect(overview.output.contains("migrate-store --from"))
        let help = try await ServerProcess.run(["migrate-store", "--help"])
        #expect(help.status == 0)
        for text in ["--from", "--to", "--batch", "PUSH_SECRET_KEY", "postgres://", "sqlite:", "EXIT STATUS", "PGPASSWORD"] {
            #expect(help.output.contains(text), "migrate-store help lacks \(text)")
        }
        #expect(try await ServerProcess.run(["help", "migrate-store"]).output == help.output)
        let missing = try await ServerProcess.run(["migrate-store", "--from", "/tmp/x.sqlite"], environment: ["PUSH_DATABASE_URL": ""])
        #expect(missing.status == 64 && missing.errors.contains("--from and --to (or PUSH_DATABASE_URL) are required"))
        let badBatch = try await ServerProcess.run(["migrate-store", "--from", "/a", "--to", "/b", "--batch", "0"])
        #expect(badBatch.status == 64 && badBatch.errors.contains("--batch"))
        let unknown = try await ServerProcess.run(["migrate-store", "--from", "/a", "--to", "/b", "--force"])
        #expect(unknown.status == 64 && unknown.errors.contains("unknown option --force"))
        let scheme = try await ServerProcess.run(["migrate-store", "--from", "/a", "--to", "mysql://root:hunter2@db/x"])
        #expect(scheme.status == 64 && scheme.errors.contains("mysql://root:***@db/x") && !scheme.errors.contains("hunter2"))
    }

    @Test func refusesWhatWouldLoseOrMixData() async throws {
        let directory = NSTemporaryDirectory() + "push-migrate-refuse-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = directory + "/source.sqlite"
        let store = try StoreLocation.sqlite(path: source).open(logger: .silent)
        try store.createApp(AppRecord(id: "chat", name: "Chat", webhookURL: nil, sealedWebhookSecret: nil, createdAt: Date()))

        // The same store, spelled two ways.
        let same = try await ServerProcess.run(["migrate-store", "--from", source, "--to", "sqlite:" + directory + "/./source.sqlite"])
        #expect(same.status == 1 && same.errors.contains("the same store"), "\(same.errors)")

        // A source that does not exist: nothing is created anywhere.
        let absent = try await ServerProcess.run(["migrate-store", "--from", directory + "/nope.sqlite", "--to", directory + "/new.sqlite"])
        #expect(absent.status == 1 && absent.errors.contains("no SQLite file"), "\(absent.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/nope.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/new.sqlite"))

        // A destination that holds rows: refused, untouched.
        let full = directory + "/full.sqlite"
        let fullStore = try StoreLocation.sqlite(path: full).open(logger: .silent)
        try fullStore.createApp(AppRecord(id: "kept", name: "Kept", webhookURL: nil, sealedWebhookSecret: nil, createdAt: Date()))
        let refused = try await ServerProcess.run(["migrate-store", "--from", source, "--to", full])
        #expect(refused.status == 1 && refused.errors.contains("already holds rows (apps: 1)"), "\(refused.errors)")
        #expect(refused.errors.contains("Nothing was written"))
        #expect(try fullStore.apps().map(\.id) == ["kept"])

        // A PostgreSQL destination that cannot be reached: the password never shows.
        let unreachable = try await ServerProcess.run([
            "migrate-store", "--from", source, "--to", "postgres://push:hunter2@127.0.0.1:1/push?connect_timeout=2",
        ])
        #expect(unreachable.status == 1, "\(unreachable.errors)")
        #expect(unreachable.errors.contains("postgres://push:***@127.0.0.1:1/push"), "\(unreachable.errors)")
        #expect(!(unreachable.errors + unreachable.output).contains("hunter2"))
        let fromEnvironment = try await ServerProcess.run(
            ["migrate-store", "--from", source],
            environment: ["PUSH_DATABASE_URL": "postgresql://push:hunter2@127.0.0.1:1/push?connect_timeout=2"])
        #expect(
            fromEnvironment.status == 1 && fromEnvironment.errors.contains("postgresql://push:***@127.0.0.1:1/push"),
            "\(fromEnvironment.errors)")
        #expect(!(fromEnvironment.errors + fromEnvironment.output).contains("hunter2"))
    }

    @Test func sqliteToSQLite() async throws {
        let directory = NSTemporaryDirectory() + "push-migrate-dest-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/copy.sqlite"
        try await Self.migrateAndServe(to: "sqlite:" + path, serviceDatabase: path)
    }

    @Test(.enabled(if: PGTest.isConfigured, "PUSH_TEST_DATABASE_URL is not set"))
    func sqliteToPostgreSQL() async throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        try await Self.migrateAndServe(to: schema.url, serviceDatabase: schema.url)
    }

    // MARK: The scenario

    /// A webhook receiver that answers 500 until told to accept.
    final class Receiver: Sendable {
        let accepting = Locked(true)
        let accepted = Locked<[(event: String, id: String, signed: Bool)]>([])
        let server: HTTPServer

        init() throws {
            let (accepting, accepted) = (self.accepting, self.accepted)
            server = try HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 1), tooLarge: HTTPResponse(status: 413)) {
                request in
                guard accepting.withLock({ $0 }) else { return HTTPResponse(status: 500) }
                accepted.withLock {
                    $0.append(
                        (
                            request.headers["x-push-event"] ?? "", request.headers["x-push-event-id"] ?? "",
                            request.headers["x-push-signature"] != nil
                        ))
                }
                return HTTPResponse(status: 200)
            }
        }

        /// Stopped on the test's thread (as `WebhookReceiver` explains).
        deinit { server.stop() }

        var url: String { "http://127.0.0.1:\(server.port)/hook" }
        var events: [String] { accepted.withLock { $0.map(\.event) } }
    }

    /// Every row of every table, each as one comparable string, sorted (stores need not keep an order).
    static func snapshot(_ store: any ServiceStore) throws -> [StoreTable: [String]] {
        var tables: [StoreTable: [String]] = [:]
        for table in StoreTable.allCases {
            var rows: [String] = []
            try store.exportRows(table: table, batchSize: 500) { batch in
                rows += batch.map { row in
                    row.map { value -> String in
                        switch value {
                        case .null: return "null"
                        case .int(let number): return "int \(number)"
                        case .text(let text): return "text \(text)"
                        case .blob(let data): return "blob " + data.base64EncodedString()
                        }
                    }.joined(separator: " | ")
                }
            }
            tables[table] = rows.sorted()
        }
        return tables
    }

    static func column(_ table: StoreTable, _ name: String) -> Int { table.columns.firstIndex(of: name)! }

    /// The values of `column` in the rows of a snapshot whose `state` is `state`.
    static func ids(_ rows: [String], table: StoreTable, state: String) -> [String] {
        rows.map { $0.components(separatedBy: " | ") }
            .filter { $0[column(table, "state")] == "text \(state)" }
            .map { String($0[column(table, "id")].dropFirst(5)) }
    }

    /// `<token> <uid> <platform> <provider>` of each token an admin listing shows, in its order.
    static func tokenList(_ response: RawHTTP.Response) -> [String] {
        ((response.data["pushTokens"] as? [[String: Any]]) ?? []).map { token in
            ["pushToken", "uid", "platform", "providerId"].map { "\(token[$0] ?? "-")" }.joined(separator: " ")
        }
    }

    static func json(_ response: RawHTTP.Response) -> NSObject? {
        (try? JSONSerialization.jsonObject(with: response.body)) as? NSObject
    }

    /// Fills a SQLite service through its API (and two store calls for what only the engine
    /// writes), stops it, migrates its store to `destination`, then checks a service started on
    /// the copy (`serviceDatabase` is its `--database`).
    static func migrateAndServe(to destination: String, serviceDatabase: String) async throws {
        let sourceDirectory = NSTemporaryDirectory() + "push-migrate-source-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: sourceDirectory) }
        let credentials = try TestCredentials.shared.get()
        let receiver = try Receiver()

        // Given a service on SQLite (the default file in its data directory) with its engine stopped
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.dataDirectory = sourceDirectory
        configuration.adminKey = adminKey
        configuration.secretKey = secretKey
        configuration.sender = .none
        configuration.pollInterval = 0.02
        configuration.webhookRetryBase = 0.05
        configuration.webhookRetryMax = 0.2
        configuration.allowInsecureWebhooks = true  // the receiver is http://127.0.0.1
        let source = try PushServiceApp(configuration: configuration, logger: .silent, startDelivery: false)
        let port = source.port
        func admin(
            _ method: String, _ path: String, app: String? = "chat", _ body: Any? = nil, key: String? = nil
        ) async throws
            -> RawHTTP.Response
        {
            var headers = ["apikey": adminKey]
            if let app { headers["appid"] = app }
            if let key { headers["Idempotency-Key"] = key }
            return try await RawHTTP.json(port: port, method, path, headers: headers, body)
        }

        // apps, providers (sealed keys), users, auth tokens, push tokens
        #expect(try await admin("POST", "/apps", app: nil, ["appId": "chat", "name": "Chat", "webhookUrl": receiver.url]).status == 200)
        #expect(try await admin("POST", "/apps", app: nil, ["appId": "other", "name": "Other"]).status == 200)
        let apns: [String: Any] = [
            "providerId": "apns-1", "keyId": "MIGKEY0001", "teamId": "MIGTEAM001", "bundleId": "com.example.chat",
            "p8Key": credentials.apnsPrivateKeyPEM, "production": false,
        ]
        #expect(try await admin("POST", "/notifications/push/v1/providers/apns", apns).status == 200)
        let fcm: [String: Any] = [
            "providerId": "fcm-1",
            "serviceAccountCreds": [
                "project_id": "demo-project", "client_email": "push@demo-project.iam.gserviceaccount.com",
                "private_key": credentials.fcmPrivateKeyPEM, "private_key_id": "kid-1",
            ],
        ]
        #expect(try await admin("POST", "/notifications/push/v1/providers/fcm", fcm).status == 200)
        var authTokens: [String: String] = [:]
        for uid in ["alice", "bob"] {
            let created = try await admin("POST", "/users", ["uid": uid, "name": uid.capitalized, "withAuthToken": true])
            authTokens[uid] = try #require(created.data["authToken"] as? String)
        }
        #expect(try await admin("POST", "/users", app: "other", ["uid": "carol"]).status == 200)
        // a group (issue 31) of two users and a member who is not a user yet, and a group too
        // large for a send's inline limit, sent to (its send and its members are kept)
        #expect(try await admin("PUT", "/groups/team/members", ["uids": ["alice", "bob", "dave"]]).status == 200)
        let crowd = (0..<1_001).map { "fan-\($0)" }
        #expect(try await admin("PUT", "/groups/crowd/members", ["uids": crowd]).status == 200)
        let groupSend: [String: Any] = [
            "type": "campaign", "recipients": ["group": "crowd"],
            "campaign": ["id": "an-1", "campaignId": "c-1", "title": "News", "body": "For the crowd"],
        ]
        #expect(try await admin("POST", "/notifications/push/v1/send", groupSend, key: "crowd").status == 202)
        let bobSecond = try #require(try await admin("POST", "/users/bob/auth_tokens").data["authToken"] as? String)
        func register(_ uid: String, _ token: String, platform: String, auth: String? = nil) async throws -> Int {
            try await RawHTTP.json(
                port: port, "POST", "/notifications/push/v1/tokens", headers: ["appid": "chat", "authToken": auth ?? authTokens[uid]!],
                ["fcmToken": token, "platform": platform, "providerId": "apns-1", "timezone": "Europe/Paris"]
            ).status
        }
        let hex = { (n: Int) in String(format: "%064x", n) }
        for n in 1...3 { #expect(try await register("bob", hex(0xB0B0 + n), platform: "apns_ios_device") == 200) }
        #expect(try await register("bob", hex(0xB0B0_0F), platform: "apns_ios_voip", auth: bobSecond) == 200)
        #expect(try await register("alice", hex(0xA11CE), platform: "apns_ios_device") == 200)
        #expect(try await register("alice", hex(0xA11CE_0F), platform: "apns_ios_voip") == 200)

        // a send whose jobs are finished (as the engine would), a webhook delivered; bob's badge
        // is the service's (his unread messages: issue 30)
        let chat: (String) -> [String: Any] = { id in
            [
                "type": "chat", "recipients": [["uid": "bob", "badge": "auto"]],
                "message": ["id": id, "sender": ["uid": "alice"], "receiver": ["uid": "bob"], "text": "Message \(id)"],
            ]
        }
        #expect(try await admin("POST", "/notifications/push/v1/send", chat("m1"), key: "first").status == 200)
        let claimed = try source.store.claimPushJobs(limit: 100, lease: 60, now: Date())
        #expect(claimed.count == 3)
        try source.store.finishPushJobs(claimed.map { (id: $0.id, outcome: JobOutcome.delivered) }, now: Date())
        let bob = ["appid": "chat", "authToken": authTokens["bob"]!]
        #expect(
            try await RawHTTP.json(
                port: port, "POST", "/users/alice/conversation/delivered", headers: bob,
                ["messageId": "m1", "pushId": claimed[0].id, "deliveredBy": "extension"]
            ).status == 200)
        #expect(await eventually { receiver.events == ["message.delivered"] })

        // alice's notification preferences (she receives nothing below, so they change no push)
        #expect(try await admin("PUT", "/users/alice/push-preferences/mutes", ["receiverType": "group", "receiver": "g1"]).status == 200)
        #expect(try await admin("PUT", "/users/alice/push-preferences/groups/g2", ["level": "mentions"]).status == 200)
        #expect(
            try await admin("PUT", "/users/alice/push-preferences/quiet-hours", ["start": "22:00", "end": "07:00", "includeCalls": false])
                .status == 200)

        // bob read a conversation (his changes feed), and alice's session on a third device was
        // revoked (its push token is kept as revoked)
        let read = try await RawHTTP.json(
            port: port, "POST", "/notifications/push/v1/read", headers: bob, ["receiverType": "user", "receiver": "alice"])
        #expect(read.data["devices"] as? Int == 0, "bob's other device has only a VoIP token")
        let aliceThird = try #require(try await admin("POST", "/users/alice/auth_tokens").data["authToken"] as? String)
        #expect(try await register("alice", hex(0xA11CE_03), platform: "apns_ios_device", auth: aliceThird) == 200)
        #expect(try await admin("DELETE", "/users/alice/auth_tokens/\(aliceThird)").data["pushTokens"] as? Int == 1)

        // then pending work: two sends (one a call: a call record), two webhook events (one
        // idempotent), and a provider token another instance cached
        receiver.accepting.withLock { $0 = false }
        let second = try await admin("POST", "/notifications/push/v1/send", chat("m2"), key: "second")
        let secondId = try #require(second.data["requestId"] as? String)
        let callSend: [String: Any] = [
            "type": "call", "recipients": [["uid": "bob"]],
            "call": [
                "sessionId": "call-migrate-1", "callAction": "initiated", "callType": "audio", "sender": ["uid": "alice"],
                "receiver": ["uid": "bob"], "receiverType": "user",
                // now: a call push past its ring deadline (sentAt + 45 s) is never sent
                "sentAt": Int64(Date().timeIntervalSince1970 * 1000),
            ] as [String: Any],
        ]
        #expect(try await admin("POST", "/notifications/push/v1/send", callSend, key: "call").status == 200)
        #expect(
            try await RawHTTP.json(port: port, "POST", "/users/alice/conversation/delivered", headers: bob, ["messageId": "m2"]).status
                == 200)
        #expect(try await RawHTTP.json(port: port, "PUT", "/campaigns/push-notifications/c1/clicked", headers: bob, nil).status == 200)
        _ = try source.store.withSharedProviderToken(teamId: "OTHERTEAM1", keyId: "OTHERKEY01") { _ in
            SharedProviderToken(sealed: Data("sealed elsewhere".utf8), issuedAt: Date(timeIntervalSince1970: 1_764_000_000))
        }
        // Bob reads his conversation with Alice on the web (issue 31): activity and a held push.
        let now = Date()
        try source.store.setActivity(
            appId: "chat", uid: "bob", source: UserActivity.backEnd, conversationId: "alice_user_bob",
            expiresAt: now.addingTimeInterval(300), now: now)
        try source.store.recordHeldPushes(
            appId: "chat", uid: "bob", conversationId: "alice_user_bob", jobIds: ["held-job"], until: now.addingTimeInterval(60), now: now)
        var before: [String: NSObject] = [:]
        for (name, path, app) in [
            ("apps", "/apps", nil), ("users", "/users", "chat"), ("providers", "/notifications/push/v1/providers", "chat"),
            ("bob's auth tokens", "/users/bob/auth_tokens", "chat"), ("other's users", "/users", "other"),
        ] as [(String, String, String?)] {
            before[name] = json(try await admin("GET", path, app: app))
        }
        let tokensBefore = tokenList(try await admin("GET", "/notifications/push/v1/tokens"))
        #expect(tokensBefore.count == 6)

        // When the service is stopped (stop() returns once its webhook worker recorded its last
        // attempt: no job is left leased) and its store migrated
        source.stop()
        let sourceRows = try snapshot(source.store)
        #expect(sourceRows[.webhookJobs]?.filter { $0.contains(" | text leased | ") } == [], "stop() left a webhook job leased")
        for table in StoreTable.allCases { #expect(!(sourceRows[table] ?? []).isEmpty, "the source has \(table.rawValue) rows") }
        let pendingJobs = ids(sourceRows[.pushJobs]!, table: .pushJobs, state: "pending")
        let finishedJobs = ids(sourceRows[.pushJobs]!, table: .pushJobs, state: "delivered")
        #expect(pendingJobs.count == 4 && finishedJobs.count == 3)
        #expect(ids(sourceRows[.webhookJobs]!, table: .webhookJobs, state: "pending").count == 2)

        let sourceFile = sourceDirectory + "/push.sqlite"
        let migrated = try await ServerProcess.run(["migrate-store", "--from", "sqlite:" + sourceFile, "--to", destination, "--batch", "2"])
        #expect(migrated.status == 0, "\(migrated.output)\n\(migrated.errors)")
        #expect(migrated.output.contains("push_jobs        7 -> 7"), "\(migrated.output)")
        #expect(migrated.output.contains("every table's rows match"))
        #expect(migrated.output.contains("same secret key"))
        let copy = try StoreLocation.parse(destination).open(poolSize: 2, logger: .silent)
        let copyRows = try snapshot(copy)
        for table in StoreTable.allCases { #expect(copyRows[table] == sourceRows[table], "\(table.rawValue) differs after the copy") }

        // A second run finds rows in the destination: refused, nothing added.
        let again = try await ServerProcess.run(["migrate-store", "--from", "sqlite:" + sourceFile, "--to", destination])
        #expect(again.status == 1 && again.errors.contains("already holds rows"), "\(again.errors)")
        #expect(try copy.rowCount(table: .pushJobs) == 7)

        // Then a service on the copy (same secret key) answers as the old one did
        receiver.accepting.withLock { $0 = true }
        let mock = try NativeMockAPNs(
            binaryDirectory: ServerProcess.binary.deletingLastPathComponent(), latencyMilliseconds: 0, recordJWTs: true)
        defer { mock.stop() }
        let serviceDirectory = NSTemporaryDirectory() + "push-migrate-service-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: serviceDirectory) }
        let service = try await ServerProcess.start(
            [
                "--port", "0", "--data-dir", serviceDirectory, "--database", serviceDatabase, "--apns-url", mock.baseURL,
                "--ca-file", mock.credentials.caFile, "--log-level", "error", "--rate-limit", "0",
                "--webhook-retry-base", "0.05", "--webhook-retry-max", "0.2",
                // The copied webhook URL is the receiver's, http://127.0.0.1.
                "--allow-insecure-webhooks",
            ],
            environment: ["PUSH_ADMIN_KEY": adminKey, "PUSH_SECRET_KEY": secretKey])
        defer { service.stop() }
        func call(
            _ method: String, _ path: String, app: String? = "chat", _ body: Any? = nil, headers: [String: String] = [:]
        ) async throws
            -> RawHTTP.Response
        {
            var all = headers
            if all["authToken"] == nil { all["apikey"] = adminKey }
            if let app { all["appid"] = app }
            return try await RawHTTP.json(port: service.port, method, path, headers: all, body)
        }
        for (name, path, app) in [
            ("apps", "/apps", nil), ("users", "/users", "chat"), ("providers", "/notifications/push/v1/providers", "chat"),
            ("bob's auth tokens", "/users/bob/auth_tokens", "chat"), ("other's users", "/users", "other"),
        ] as [(String, String, String?)] {
            let now = json(try await call("GET", path, app: app))
            #expect(now != nil && now == before[name], "\(name) differ after the migration")
        }
        #expect(tokenList(try await call("GET", "/notifications/push/v1/tokens")) == tokensBefore)

        // pending jobs are delivered (their apns-id is the job id); finished ones are not sent again
        let delivered = await eventually(timeout: 30) { Set(mock.answered()).isSuperset(of: pendingJobs.map { $0.lowercased() }) }
        #expect(delivered, "every pending job reached the mock: \(mock.answered())")
        #expect(Set(mock.answered()).isDisjoint(with: finishedJobs.map { $0.lowercased() }))
        // signed with the copied provider's key (the mock notes each distinct provider token)
        let jwts = mock.jwts()
        #expect(jwts.map { "\($0.issuer)/\($0.keyId)" } == ["MIGTEAM001/MIGKEY0001"], "\(jwts)")
        #expect(jwts.allSatisfy { abs(Double($0.issuedAt) - Date().timeIntervalSince1970) < 300 && $0.fingerprint.count == 16 })

        // the idempotency records: the same key and body replays the stored answer, another body is refused
        let replay = try await call("POST", "/notifications/push/v1/send", chat("m2"), headers: ["Idempotency-Key": "second"])
        #expect(replay.status == 200 && replay.data["requestId"] as? String == secondId && replay.data["replayed"] as? Bool == true)
        let reused = try await call("POST", "/notifications/push/v1/send", chat("other"), headers: ["Idempotency-Key": "second"])
        #expect(reused.status == 422)
        #expect(try copy.rowCount(table: .pushJobs) == 7, "a replay adds no job")

        // the auth tokens work; a new token sorts after the copied ones (the token sequence continues)
        #expect(try await register2(service.port, authTokens["bob"]!, hex(0xB0B0_99)) == 200)
        let bobTokens = tokenList(try await call("GET", "/notifications/push/v1/tokens?uid=bob")).map { String($0.prefix(64)) }
        #expect(bobTokens.last == hex(0xB0B0_99), "\(bobTokens)")
        #expect(try await register2(service.port, "bob_not-a-token", hex(0xB0B0_98)) == 401)

        // the webhook events waiting in the outbox are delivered, signed with the copied secret
        #expect(
            await eventually(timeout: 20) {
                receiver.events.sorted() == ["campaign.clicked", "message.delivered", "message.delivered"]
            })
        #expect(receiver.accepted.withLock { $0.allSatisfy(\.signed) })
        // the campaign receipt was recorded once: clicking again adds no event
        let webhooksBefore = try copy.rowCount(table: .webhookJobs)
        #expect(try await call("PUT", "/campaigns/push-notifications/c1/clicked", headers: ["authToken": authTokens["bob"]!]).status == 200)
        #expect(try copy.rowCount(table: .webhookJobs) == webhooksBefore)

        // the call record with its recipients: declining the copied call pushes to the caller;
        // an unknown call is refused
        let jobsBefore = try copy.rowCount(table: .pushJobs)
        #expect(
            try await call("PUT", "/calls/no-such-call", ["status": "rejected"], headers: ["authToken": authTokens["bob"]!]).status == 403)
        #expect(try copy.rowCount(table: .pushJobs) == jobsBefore)
        #expect(
            try await call("PUT", "/calls/call-migrate-1", ["status": "rejected"], headers: ["authToken": authTokens["bob"]!]).status == 200
        )
        #expect(try copy.rowCount(table: .pushJobs) > jobsBefore, "the decline push to the caller needs the copied call record")
    }

    static func register2(_ port: Int, _ authToken: String, _ token: String) async throws -> Int {
        try await RawHTTP.json(
            port: port, "POST", "/notifications/push/v1/tokens", headers: ["appid": "chat", "authToken": authToken],
            ["fcmToken": token, "platform": "apns_ios_device", "providerId": "apns-1", "timezone": "Europe/Paris"]
        ).status
    }
}
