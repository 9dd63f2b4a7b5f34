import Foundation
import PushCore
import PushMocks
import PushService
import PushStore
import PushTestSupport
import Testing

/// Issue 24, items 3 and 4: what the service refuses or fixes at the door so that nothing it
/// accepts fails later, and what it does about logs, files and defaults. Each test is one
/// finding, and failed on the code before its fix.
@Suite struct DoorLimitsTests {
    static func error(_ response: RawHTTP.Response) -> (code: String?, details: [String: Any], message: String) {
        let error = response.json["error"] as? [String: Any] ?? [:]
        return (error["code"] as? String, error["details"] as? [String: Any] ?? [:], error["message"] as? String ?? "")
    }

    static func chat(_ message: [String: Any] = [:], to uid: String = "bob") -> [String: Any] {
        var body: [String: Any] = ["id": "m1", "sender": ["uid": "alice", "name": "Alice"], "receiver": ["uid": uid], "text": "hi"]
        body.merge(message) { $1 }
        return ["type": "chat", "recipients": [["uid": uid]], "message": body]
    }

    // MARK: Limits at the door

    /// A call whose session id is longer than APNs' 64-byte collapse id used to be accepted and
    /// then fail `BadCollapseId` on every alert token: the call never rang there. Its alert pushes
    /// now carry a derived collapse id that fits, the same for every push of the call, and ring.
    @Test func aCallWithALongSessionIdRingsOnAnAlertToken() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let harness = try await Harness.start(sender: .delivery) { configuration in
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
        }
        _ = try await harness.admin("POST", "/apps", ["appId": "app1", "name": "App"])
        let provider: [String: Any] = [
            "providerId": "apns-1", "keyId": MockPushServer.keyID, "teamId": MockPushServer.teamID, "bundleId": "com.example.app",
            "p8Key": mock.credentials.apnsPrivateKeyPEM, "production": false,
        ]
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", provider).status == 200)
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register("ab12", platform: "apns_ios_device", session: bob).status == 200)
        #expect(try await harness.register("ab34", platform: "apns_ios_device", session: bob).status == 200)

        // When a call with a 100-character session id is sent to bob, who has no VoIP token
        let sessionId = "v1.us." + String(repeating: "c", count: 94)
        let send: [String: Any] = [
            "type": "call", "recipients": [["uid": "bob"]],
            "call": ["sessionId": sessionId, "callAction": "initiated", "sender": ["uid": "alice"], "receiver": ["uid": "bob"]],
        ]
        let accepted = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send)
        #expect(accepted.status == 200)

        // Then both pushes reach APNs with one collapse id of at most 64 bytes, and are delivered
        let store = harness.store
        #expect(await Harness.eventually { (try? store.pushJobCounts()).map { $0.delivered + $0.failed } == 2 })
        #expect(try store.pushJobCounts().delivered == 2)
        let collapseIds = Set(mock.log(kind: "apns").map { $0["collapse_id"] as? String ?? "" })
        #expect(collapseIds.count == 1)
        let collapseId = try #require(collapseIds.first)
        #expect(!collapseId.isEmpty && collapseId.utf8.count <= 64, "\(collapseId)")
        #expect(collapseId != sessionId)
        // and the payload still names the whole session id
        let job = try #require(try store.allPushJobs().first)
        let payload = try JSONSerialization.jsonObject(with: job.payload) as? [String: Any] ?? [:]
        #expect(payload["sessionId"] as? String == sessionId)
    }

    /// A session id of up to 64 bytes is the collapse id, as before.
    @Test func aShortSessionIdIsTheCollapseId() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp()
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register("ab12", platform: "apns_ios_device", session: bob).status == 200)
        let sessionId = String(repeating: "s", count: 64)
        let send: [String: Any] = [
            "type": "call", "recipients": [["uid": "bob"]],
            "call": ["sessionId": sessionId, "callAction": "initiated", "sender": ["uid": "alice"], "receiver": ["uid": "bob"]],
        ]
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send).status == 200)
        #expect(try harness.store.allPushJobs().map(\.headers.collapseId) == [sessionId])
    }

    static func oversized(_ name: String) -> (send: [String: Any], field: String) {
        let cases: [String: ([String: Any], String)] = [
        "custom": (chat(["custom": ["blob": String(repeating: "x", count: 4_000)]]), "message.custom"),
        "text": (chat(["text": String(repeating: "t", count: 2_100)]), "message.text"),
        "message object": (chat(["message": ["data": String(repeating: "m", count: 4_000)], "text": "hi"]), "message.message"),
        "avatars": (
            [
                "type": "call", "recipients": [["uid": "bob"]],
                "call": [
                    "sessionId": "s1", "callAction": "initiated",
                    "sender": ["uid": "alice", "avatar": "https://a.example/" + String(repeating: "a", count: 2_000)],
                    "receiver": ["uid": "bob", "avatar": "https://b.example/" + String(repeating: "b", count: 1_900)],
                ],
            ], "call.sender.avatar"
        ),
        "campaign": (
            [
                "type": "campaign", "recipients": [["uid": "bob"]],
                "campaign": ["id": "a1", "campaignId": "c1", "title": "Sale", "body": String(repeating: "b", count: 3_000)],
            ], "campaign.body"
        ),
        ]
        return cases[name]!
    }

    /// A send whose payload APNs would refuse as too large (4,096 bytes; 5,120 for VoIP) used to
    /// be stored as jobs that failed `PayloadTooLarge`; it is now a 400 that names the field that
    /// made it so large, and nothing is stored.
    @Test(arguments: ["custom", "text", "message object", "avatars", "campaign"])
    func anOversizedPayloadIsRefusedNamingItsLargestField(name: String) async throws {
        let (send, field) = Self.oversized(name)
        let harness = try await Harness.start()
        try await harness.makeApp()
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register("ab12", platform: "apns_ios_device", session: bob).status == 200)
        #expect(try await harness.register("fcm-token-1", platform: "fcm_ios", session: bob).status == 200)

        let response = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send)

        let error = Self.error(response)
        #expect(response.status == 400 && error.code == "ERR_BAD_REQUEST", "\(name): \(response.status)")
        #expect(error.details.keys.sorted() == [field], "\(name): \(error.details)")
        #expect(error.message.contains("4096"), "\(error.message)")
        #expect(try harness.store.allPushJobs().isEmpty, "no job is stored")
    }

    /// A VoIP push may be larger than an alert (5,120 bytes): a call that fits it rings on VoIP.
    @Test func aCallThatFitsVoIPsLimitIsAcceptedForAVoIPToken() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp()
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register("ab12", platform: "apns_ios_voip", session: bob).status == 200)
        let send: [String: Any] = [
            "type": "call", "recipients": [["uid": "bob"]],
            "call": [
                "sessionId": "s1", "callAction": "initiated",
                "sender": ["uid": "alice", "avatar": "https://a.example/" + String(repeating: "a", count: 2_000)],
                "receiver": ["uid": "bob", "avatar": "https://b.example/" + String(repeating: "b", count: 2_000)],
            ],
        ]
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send).status == 200)
        let job = try #require(try harness.store.allPushJobs().first)
        #expect(job.payload.count > 4_096 && job.payload.count <= 5_120, "\(job.payload.count)")
    }

    /// `ttlSeconds` becomes `apns-expiration` (now + TTL): out of its range it is refused by name.
    @Test(arguments: [-1, 2_419_201])
    func aTTLOutOfRangeIsRefused(ttl: Int) async throws {
        let harness = try await Harness.start()
        try await harness.makeApp()
        var send = Self.chat()
        send["ttlSeconds"] = ttl
        let response = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send)
        #expect(response.status == 400 && Self.error(response).details.keys.sorted() == ["ttlSeconds"])
    }

    /// The bundle id becomes `apns-topic`: one APNs could never take is refused when the provider
    /// is saved (it was stored, and every push failed `BadTopic` later).
    @Test(arguments: ["com.example chat", "com..example", ".com.example", "com.example.", "com.example/chat", "com.exämple", String(repeating: "a", count: 156)])
    func aBundleIdThatCannotBeATopicIsRefused(bundleId: String) async throws {
        let harness = try await Harness.start()
        _ = try await harness.admin("POST", "/apps", ["appId": "app1", "name": "App"])
        var provider = Harness.apnsProvider("apns-1")
        provider["bundleId"] = bundleId
        for method in ["POST", "PUT"] {
            let response = try await harness.admin(method, "/notifications/push/v1/providers/apns", appId: "app1", provider)
            #expect(response.status == 400 && Self.error(response).details.keys.sorted() == ["bundleId"], "\(method) \(bundleId)")
        }
        provider["bundleId"] = "com.example-2.Chat" + String(repeating: "a", count: 137)
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", provider).status == 200)
    }

    // MARK: Files, logs and defaults

    /// The lines a service logged.
    final class LogLines: @unchecked Sendable {
        // @unchecked: `lines` is only touched under `lock`.
        private let lock = NSLock()
        private var lines: [String] = []

        var sink: @Sendable (String) -> Void { { line in self.lock.withLock { self.lines.append(line) } } }
        var all: [String] { lock.withLock { lines } }
    }

    /// A request's path went into the log as it came, so an unauthenticated request to a path with
    /// `%0d%0a` forged a log line, and `%1b[31m` reached the operator's terminal. Control
    /// characters are now written escaped: one request, one line, no control byte.
    @Test func aPathWithLineBreaksAndEscapesIsLoggedAsOneLine() async throws {
        let log = LogLines()
        let harness = try await Harness.start(logger: log.sink)
        // (The log cuts a path segment over 24 characters: each is shorter.)
        let forged = "/x%0d%0a[error]%20forged%1b[31m/%0a%09%7f%c2%85end"
        let response = try await RawHTTP.request(port: harness.port, "GET", forged)
        #expect(response.status == 404)

        let request = try #require(await Harness.eventually { log.all.contains { $0.contains("forged") } } ? log.all : nil)
        // Each message is one line as the sink receives it, and the text as a whole has one line
        // that mentions the path.
        let text = request.joined(separator: "\n")
        let lines = text.split(whereSeparator: \.isNewline).filter { $0.contains("GET /x") || $0.contains("forged") }
        #expect(lines.count == 1, "\(lines)")
        let line = try #require(lines.first)
        let controls = line.unicodeScalars.filter { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        #expect(controls.isEmpty, "raw control characters: \(controls.map(\.value))")
        #expect(line.contains(#"GET /x\r\n[error] forged\u{1b}[31m/\n\t\u{7f}\u{85}end 404"#), "\(line)")
    }

    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    /// The database (`push.sqlite*`) was 0644 and the data directory 0755: anyone on the machine
    /// could read every token, and the sealed secrets. A new data directory is 0700 and what the
    /// service creates in it 0600, the `-wal` and `-shm` files too; a database the service
    /// creates outside it is 0600 as well.
    @Test func aNewDataDirectoryIsPrivate() async throws {
        let root = NSTemporaryDirectory() + "push-door-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dataDirectory = root + "/data"
        let harness = try await Harness.start { configuration in
            configuration.dataDirectory = dataDirectory
            configuration.databasePath = nil  // <data-dir>/push.sqlite, on SQLite whatever the suite's store
            configuration.adminKey = nil
            configuration.secretKey = nil
            configuration.seedDev = true
        }
        _ = try await harness.admin("GET", "/apps")  // (the admin key is the file's now: any answer will do)
        try harness.store.createApp(AppRecord(id: "a", name: "A", createdAt: Date()))  // a write: the WAL and its index exist

        #expect(Self.mode(dataDirectory) == 0o700)
        for name in ["push.sqlite", "push.sqlite-wal", "push.sqlite-shm", "admin.key", "secret.key", "dev-seed.json"] {
            #expect(Self.mode(dataDirectory + "/" + name) == 0o600, "\(name): \(String(Self.mode(dataDirectory + "/" + name) ?? -1, radix: 8))")
        }
        harness.app.stop()

        // A --database outside the data directory that the service creates
        let elsewhere = try await Harness.start { configuration in
            configuration.dataDirectory = root + "/data2"
            configuration.databasePath = root + "/elsewhere.sqlite"
        }
        try elsewhere.store.createApp(AppRecord(id: "a", name: "A", createdAt: Date()))
        for name in ["elsewhere.sqlite", "elsewhere.sqlite-wal", "elsewhere.sqlite-shm"] {
            #expect(Self.mode(root + "/" + name) == 0o600, "\(name)")
        }
        elsewhere.app.stop()
    }

    /// A data directory an older version left open is tightened at start: each path the service
    /// owns, one info line per path changed; files it does not own stay as they are.
    @Test func anExistingDataDirectoryIsTightenedAtStart() async throws {
        let dataDirectory = NSTemporaryDirectory() + "push-door-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        // Given what an older version left: everything 0644 in a 0755 directory, and a file of the operator's
        let first = try await Harness.start { configuration in
            configuration.dataDirectory = dataDirectory
            configuration.databasePath = nil
            configuration.adminKey = nil
            configuration.secretKey = nil
        }
        try first.store.createApp(AppRecord(id: "a", name: "A", createdAt: Date()))
        first.app.stop()
        let owned = ["push.sqlite", "push.sqlite-wal", "push.sqlite-shm", "admin.key", "secret.key"]
        for name in owned + ["notes.txt"] {
            let path = dataDirectory + "/" + name
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: Data()) }
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dataDirectory)

        // When the service starts on it
        let log = LogLines()
        let second = try await Harness.start(
            configure: { configuration in
                configuration.dataDirectory = dataDirectory
                configuration.databasePath = nil
                configuration.adminKey = nil
                configuration.secretKey = nil
            }, logger: log.sink)
        #expect(try second.store.app(id: "a") != nil, "the data is still there")

        // Then each owned path is private, with one line saying so, and the operator's file is left alone
        #expect(Self.mode(dataDirectory) == 0o700)
        for name in owned { #expect(Self.mode(dataDirectory + "/" + name) == 0o600, "\(name)") }
        #expect(Self.mode(dataDirectory + "/notes.txt") == 0o644)
        let tightened = log.all.filter { $0.contains("tightened") }
        for path in [dataDirectory] + owned.map({ dataDirectory + "/" + $0 }) {
            let mode = path == dataDirectory ? "from 0755 to 0700" : "from 0644 to 0600"
            #expect(tightened.filter { $0.contains("[info] tightened \(path) \(mode)") }.count == 1, "\(path): \(tightened)")
        }
        #expect(tightened.count == owned.count + 1)
        second.app.stop()

        // and a start on a private directory changes and logs nothing
        let quiet = LogLines()
        let third = try await Harness.start(
            configure: { configuration in
                configuration.dataDirectory = dataDirectory
                configuration.databasePath = nil
                configuration.adminKey = nil
                configuration.secretKey = nil
            }, logger: quiet.sink)
        #expect(!quiet.all.contains { $0.contains("tightened") })
        third.app.stop()
    }
}
