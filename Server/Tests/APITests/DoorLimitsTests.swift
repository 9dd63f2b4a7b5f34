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
            "providerId": "apns-1", "keyId": MockPushServer.keyId, "teamId": MockPushServer.teamId, "bundleId": "com.example.app",
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
        #expect(await eventually { (try? store.pushJobCounts()).map { $0.delivered + $0.failed } == 2 })
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

    /// A send whose jobs are made while the store writes them (issue 32: a send with more tokens
    /// than `sendJobsMadeBeforeTheStore`; here every send) answers exactly as one whose jobs were
    /// made beforehand, and an oversized one is still refused by name with nothing stored.
    @Test func aSendStreamedIntoTheStoreAnswersAsAnyOtherAndAnOversizedOneStoresNothing() async throws {
        var answers: [String] = []
        for madeBefore in [0, 2_048] {
            let harness = try await Harness.start { $0.sendJobsMadeBeforeTheStore = madeBefore }
            try await harness.makeApp()
            for (uid, tokens) in [("bob", ["ab12", "ab13"]), ("carol", ["cd12"]), ("dave", [])] {
                let session = try await harness.makeUser(uid)
                for token in tokens {
                    #expect(try await harness.register(token, platform: "apns_ios_device", session: session).status == 200)
                }
            }
            var send = Self.chat()
            send["recipients"] = [["uid": "bob"], ["uid": "carol"], ["uid": "dave"]]
            let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send)
            #expect(sent.status == 200 && sent.data["jobs"] as? Int == 3, "\(madeBefore): \(sent.data)")
            var answer = sent.data
            answer["requestId"] = nil
            answers.append(String(decoding: try JSONSerialization.data(withJSONObject: answer, options: .sortedKeys), as: UTF8.self))
            #expect(try harness.store.allPushJobs().count == 3)

            let (oversized, field) = Self.oversized("custom")
            let refused = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", oversized)
            #expect(refused.status == 400 && Self.error(refused).details.keys.sorted() == [field], "\(madeBefore): \(refused.status)")
            #expect(try harness.store.allPushJobs().count == 3, "the refused send stored nothing")
        }
        #expect(answers.count == 2 && answers[0] == answers[1], "\(answers)")
        #expect(answers.first?.contains("\"uid\":\"dave\"") == true)
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
    @Test(arguments: [
        "com.example chat", "com..example", ".com.example", "com.example.", "com.example/chat", "com.exämple",
        String(repeating: "a", count: 156),
    ])
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

    /// A request's path went into the log as it came, so an unauthenticated request to a path with
    /// `%0d%0a` forged a log line, and `%1b[31m` reached the operator's terminal. Control
    /// characters are now written escaped: one request, one line, no control byte.
    @Test func aPathWithLineBreaksAndEscapesIsLoggedAsOneLine() async throws {
        let log = RecordingLogHandler()
        let harness = try await Harness.start(logs: log)
        // (The log cuts a path segment over 24 characters: each is shorter.)
        let forged = "/x%0d%0a[error]%20forged%1b[31m/%0a%09%7f%c2%85end"
        // Over a socket: the path as libmicrohttpd decodes it.
        let response = try await RawHTTP.request(port: harness.port, "GET", forged)
        #expect(response.status == 404)

        let request = try #require(await eventually { log.lines.contains { $0.contains("forged") } } ? log.lines : nil)
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
            #expect(
                Self.mode(dataDirectory + "/" + name) == 0o600, "\(name): \(String(Self.mode(dataDirectory + "/" + name) ?? -1, radix: 8))")
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
        let log = RecordingLogHandler()
        let second = try await Harness.start(
            configure: { configuration in
                configuration.dataDirectory = dataDirectory
                configuration.databasePath = nil
                configuration.adminKey = nil
                configuration.secretKey = nil
            }, logs: log)
        #expect(try second.store.app(id: "a") != nil, "the data is still there")

        // Then each owned path is private, with one line saying so, and the operator's file is left alone
        #expect(Self.mode(dataDirectory) == 0o700)
        for name in owned { #expect(Self.mode(dataDirectory + "/" + name) == 0o600, "\(name)") }
        #expect(Self.mode(dataDirectory + "/notes.txt") == 0o644)
        let tightened = log.lines.filter { $0.contains("tightened") }
        for path in [dataDirectory] + owned.map({ dataDirectory + "/" + $0 }) {
            let mode = path == dataDirectory ? "from 0755 to 0700" : "from 0644 to 0600"
            #expect(tightened.filter { $0.contains("[info] tightened \(path) \(mode)") }.count == 1, "\(path): \(tightened)")
        }
        #expect(tightened.count == owned.count + 1)
        second.app.stop()

        // and a start on a private directory changes and logs nothing
        let quiet = RecordingLogHandler()
        let third = try await Harness.start(
            configure: { configuration in
                configuration.dataDirectory = dataDirectory
                configuration.databasePath = nil
                configuration.adminKey = nil
                configuration.secretKey = nil
            }, logs: quiet)
        #expect(!quiet.lines.contains { $0.contains("tightened") })
        third.app.stop()
    }

    // MARK: The default provider

    static func registerWithoutProvider(
        _ harness: Harness, _ session: Harness.TestSession, _ token: String, platform: String
    ) async throws
        -> RawHTTP.Response
    {
        try await harness.client(
            "POST", "/notifications/push/v1/tokens", session: session, ["fcmToken": token, "platform": platform])
    }

    /// A token registered without `providerId` went to the app's first provider of its kind by
    /// id, so adding a provider whose id sorts first silently moved where such tokens went. The
    /// app's first provider is now recorded as its default, and a second one changes nothing.
    @Test func aSecondProviderDoesNotMoveTokensRegisteredWithoutAProviderId() async throws {
        let harness = try await Harness.start()
        _ = try await harness.admin("POST", "/apps", ["appId": "app1", "name": "App"])
        #expect(
            try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", Harness.apnsProvider("m-apns")).status
                == 200)
        #expect(try await harness.admin("GET", "/apps/app1").data["defaultApnsProviderId"] as? String == "m-apns")
        let bob = try await harness.makeUser("bob")
        let first = try await Self.registerWithoutProvider(harness, bob, "ab01", platform: "apns_ios_device")
        #expect(first.data["providerId"] as? String == "m-apns")

        // When a provider whose id sorts first is added
        #expect(
            try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", Harness.apnsProvider("a-apns")).status
                == 200)

        // Then tokens registered without a provider id still go to the default
        let second = try await Self.registerWithoutProvider(harness, bob, "ab02", platform: "apns_ios_voip")
        #expect(second.data["providerId"] as? String == "m-apns")
        let again = try await Self.registerWithoutProvider(harness, bob, "ab01", platform: "apns_ios_device")
        #expect(again.data["providerId"] as? String == "m-apns")
        let app = try await harness.admin("GET", "/apps/app1").data
        #expect(app["defaultApnsProviderId"] as? String == "m-apns")
        #expect(app["defaultFcmProviderId"] is NSNull)
        let listed = try await harness.admin("GET", "/apps").dataArray.first { $0["appId"] as? String == "app1" }
        #expect(listed?["defaultApnsProviderId"] as? String == "m-apns")
    }

    /// Without a default of the kind a registration without `providerId` is a 400 naming it;
    /// the admin API sets (an existing provider of the right kind) and clears the default, and
    /// deleting the default provider clears it.
    @Test func theDefaultIsSetClearedAndRequired() async throws {
        let harness = try await Harness.start()
        _ = try await harness.admin("POST", "/apps", ["appId": "app1", "name": "App"])
        let bob = try await harness.makeUser("bob")

        // No FCM provider: refused, naming providerId
        let none = try await Self.registerWithoutProvider(harness, bob, "fcm-a", platform: "fcm_ios")
        #expect(none.status == 400 && Self.error(none).code == "ERR_BAD_REQUEST", "\(none.status)")
        #expect(Self.error(none).details.keys.sorted() == ["providerId"])
        #expect(Self.error(none).message.contains("no default FCM provider"), "\(Self.error(none).message)")

        // Two providers; the first is the default until the admin names the other
        for id in ["fcm-1", "fcm-2"] {
            #expect(
                try await harness.admin("POST", "/notifications/push/v1/providers/fcm", appId: "app1", Harness.fcmProvider(id)).status
                    == 200)
        }
        #expect(
            try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", Harness.apnsProvider("apns-1")).status
                == 200)
        let set = try await harness.admin("PUT", "/apps/app1", ["defaultFcmProviderId": "fcm-2"])
        #expect(set.status == 200 && set.data["defaultFcmProviderId"] as? String == "fcm-2")
        #expect(try await Self.registerWithoutProvider(harness, bob, "fcm-b", platform: "fcm_ios").data["providerId"] as? String == "fcm-2")

        // A provider of the other kind, or none, is refused, and changes nothing
        let wrongKind = try await harness.admin("PUT", "/apps/app1", ["defaultFcmProviderId": "apns-1"])
        #expect(wrongKind.status == 400 && Self.error(wrongKind).details.keys.sorted() == ["defaultFcmProviderId"])
        let unknown = try await harness.admin("PUT", "/apps/app1", ["defaultApnsProviderId": "nope"])
        #expect(unknown.status == 404 && unknown.errorCode == "ERR_PROVIDER_NOT_FOUND")
        #expect(try await harness.admin("GET", "/apps/app1").data["defaultFcmProviderId"] as? String == "fcm-2")
        #expect(try await harness.admin("GET", "/apps/app1").data["defaultApnsProviderId"] as? String == "apns-1")

        // Deleting the default clears it (no silent fallback to another provider)
        #expect(try await harness.admin("DELETE", "/notifications/push/v1/providers/fcm-2", appId: "app1").status == 200)
        #expect(try await harness.admin("GET", "/apps/app1").data["defaultFcmProviderId"] is NSNull)
        #expect(try await Self.registerWithoutProvider(harness, bob, "fcm-c", platform: "fcm_ios").status == 400)
        // and null clears one the admin set
        let cleared = try await harness.admin("PUT", "/apps/app1", ["defaultApnsProviderId": NSNull()])
        #expect(cleared.status == 200 && cleared.data["defaultApnsProviderId"] is NSNull)
        #expect(try await Self.registerWithoutProvider(harness, bob, "ab03", platform: "apns_ios_device").status == 400)
        // A registration naming its provider needs no default
        #expect(try await harness.register("ab04", platform: "apns_ios_device", session: bob).status == 200)
    }

    /// The rows a schema-10 database holds for the migration tests: app `a1` with two APNs and
    /// two FCM providers (ids out of order), app `a2` with none, a user with a token.
    static let schema10Rows = """
        INSERT INTO apps (id, name, created_at) VALUES ('a1', 'A1', 0), ('a2', 'A2', 0);
        INSERT INTO providers (app_id, id, kind, settings, secret, created_at, updated_at) VALUES
            ('a1', 'z-apns', 'apns', '{}', 'x', 0, 0), ('a1', 'b-apns', 'apns', '{}', 'x', 0, 0),
            ('a1', 'B-apns', 'apns', '{}', 'x', 0, 0), ('a1', 'fcm-2', 'fcm', '{}', 'x', 0, 0), ('a1', 'fcm-1', 'fcm', '{}', 'x', 0, 0);
        INSERT INTO users (app_id, uid, name, created_at) VALUES ('a1', 'bob', 'Bob', 0);
        INSERT INTO push_tokens (app_id, token, uid, platform, provider_id, auth_token_hash, auth_token_hint, created_at, updated_at, seq)
            VALUES ('a1', 'old', 'bob', 'apns_ios_device', 'B-apns', 'h', 'h', 0, 0, 1);
        """

    static func token(_ token: String, uid: String = "bob", app: String = "a1") -> PushTokenRecord {
        PushTokenRecord(
            appId: app, uid: uid, token: token, platform: .apnsDevice, providerId: "B-apns", timezone: nil, authTokenHash: Data([1]),
            authTokenHint: "h", createdAt: Date(), updatedAt: Date())
    }

    /// A database of schema 10 gets, with migration 11, the defaults its tokens used until now
    /// (the first provider of each kind by id, in byte order: `B-apns` before `b-apns`), and its
    /// users' registrations go on (their token bound is counted at their next one).
    @Test func migratingASQLiteDatabaseFromSchema10SetsTheDefaults() throws {
        let path = NSTemporaryDirectory() + "push-door-" + UUID().uuidString + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        #expect(try SQLiteStore.migrate(path: path, to: 10) == 10)
        try SQLiteFile.execute(path: path, Self.schema10Rows)

        let store = try SQLiteStore(path: path)
        #expect(store.schemaVersion == 22)
        try Self.expectMigratedDefaults(store)
    }

    @Test(.enabled(if: PGTest.url != nil, "needs PUSH_TEST_DATABASE_URL"))
    func migratingAPostgreSQLDatabaseFromSchema10SetsTheDefaults() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        #expect(try PostgresStore.migrate(url: schema.url, to: 10) == 10)
        try schema.psql(
            Self.schema10Rows.replacingOccurrences(of: "'{}', 'x'", with: "'\\x7b7d', '\\x78'")
                .replacingOccurrences(of: "'h', 'h'", with: "'\\x68', 'h'"))
        let store = try schema.open(poolSize: 1)
        defer { store.close() }
        #expect(store.schemaVersion == 22)
        try Self.expectMigratedDefaults(store)
    }

    static func expectMigratedDefaults(_ store: any ServiceStore) throws {
        let a1 = try #require(try store.app(id: "a1"))
        #expect(a1.defaultAPNsProviderId == "B-apns" && a1.defaultFCMProviderId == "fcm-1", "\(a1)")
        let a2 = try #require(try store.app(id: "a2"))
        #expect(a2.defaultAPNsProviderId == nil && a2.defaultFCMProviderId == nil)
        // Registrations after the migration keep the limit (the user's bound is counted then).
        _ = try store.registerToken(token("new1"), maxPerUser: 2)
        _ = try store.registerToken(token("new2"), maxPerUser: 2)
        #expect(try store.tokens(appId: "a1", uid: "bob").map(\.token) == ["new1", "new2"])
        // Providers added later follow the new rule: a2's first becomes its default.
        try store.createProvider(
            ProviderRecord(
                appId: "a2", id: "p", kind: .fcm, settings: Data("{}".utf8), sealedSecret: Data("x".utf8), createdAt: Date(),
                updatedAt: Date()))
        #expect(try store.app(id: "a2")?.defaultFCMProviderId == "p")
    }

    // MARK: Registrations in O(log n)

    /// Registering 5,000 tokens for one user took 60 s, slower with each: `MAX(seq)` read the
    /// whole table (through an index: SQLite's plan shows a `SEARCH` without constraints) and the
    /// trim read all of the user's tokens. No statement of a registration reads the table now:
    /// SQLite's plan (`EXPLAIN QUERY PLAN`) has no `SCAN` of `push_tokens` or `users` and no
    /// `SEARCH` without constraints but the one end of `push_tokens_seq` that `MAX(seq)` reads,
    /// and each statement takes as many steps with 5,000 tokens in the table as with 500.
    @Test func noRegistrationStatementReadsTheWholeTable() throws {
        let path = NSTemporaryDirectory() + "push-door-" + UUID().uuidString + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path, synchronousFull: false)
        try store.createApp(AppRecord(id: "a1", name: "A", createdAt: Date()))
        for uid in ["bob", "other"] { try store.createUser(UserRecord(appId: "a1", uid: uid, name: uid, createdAt: Date())) }
        for token in ["b1", "b2", "b3"] { _ = try store.registerToken(Self.token(token), maxPerUser: 100) }

        // The plans
        for sql in SQLiteStore.Registration.all {
            let plan = try store.queryPlan(sql)
            let reads = plan.filter { $0.contains(" push_tokens") || $0.contains(" users") }
            let whole = reads.filter {
                $0.hasPrefix("SCAN") || ($0.hasPrefix("SEARCH") && !$0.contains("(") && !$0.contains("push_tokens_seq"))
            }
            #expect(whole.isEmpty, "\(sql)\n\(plan)")
        }
        #expect(try store.queryPlan(SQLiteStore.Registration.nextSeq).contains { $0.contains("push_tokens_seq") })

        // The steps, with 500 and with 5,000 other tokens in the table
        let statements: [(String, [StoreValue])] = [
            (SQLiteStore.Registration.nextSeq, []),
            (SQLiteStore.Registration.owner, [.text("a1"), .text("b1")]),
            (SQLiteStore.Registration.bound, [.text("a1"), .text("bob")]),
            (
                SQLiteStore.Registration.upsert,
                [
                    .text("a1"), .text("b9"), .text("bob"), .text("apns_ios_device"), .text("p"), .null, .blob(Data([1])), .text("h"),
                    .int(0), .int(0), .int(1_000_000), .null, .null, .null, .null,
                ]
            ),
            (SQLiteStore.Registration.count, [.text("a1"), .text("bob")]),
            (SQLiteStore.Registration.trim, [.text("a1"), .text("bob"), .int(1)]),
            (SQLiteStore.Registration.setBound, [.int(3), .text("a1"), .text("bob")]),
            (SQLiteStore.Registration.stored, [.text("a1"), .text("b1")]),
        ]
        #expect(statements.map(\.0) == SQLiteStore.Registration.all)
        var seq: Int64 = 100
        func addTokens(_ count: Int) throws {
            let rows = (0..<count).map { _ -> [StoreValue] in
                seq += 1
                return [
                    .text("a1"), .text("o\(seq)"), .text("other"), .text("apns_ios_device"), .text("p"), .null, .blob(Data([2])),
                    .text("h"), .int(0), .int(0), .int(seq), .null, .null, .null, .null, .null,
                ]
            }
            try store.importRows(table: .pushTokens, rows: rows)
        }
        try addTokens(500)
        let small = try statements.map { try store.virtualMachineSteps($0.0, $0.1) }
        try addTokens(4_500)
        let large = try statements.map { try store.virtualMachineSteps($0.0, $0.1) }
        #expect(small == large, "steps per statement with 500 tokens \(small), with 5,000 \(large)")
        #expect(try store.tokens(appId: "a1", uid: "bob").map(\.token) == ["b1", "b2", "b3"], "nothing changed")
    }

    /// The user's token bound is an upper bound: tokens deleted elsewhere (unregistered, dead)
    /// make it too high, and a registration over the limit counts before it deletes anything.
    @Test func theLimitHoldsWhenTokensGoElsewhere() async throws {
        let harness = try await Harness.start { $0.maxTokensPerUser = 3 }
        try await harness.makeApp()
        let bob = try await harness.makeUser("bob")
        let alice = try await harness.makeUser("alice")
        func tokens(_ uid: String) throws -> [String] { try harness.store.tokens(appId: "app1", uid: uid).map(\.token) }
        for token in ["b1", "b2", "b3"] {
            #expect(try await harness.register(token, platform: "apns_ios_device", session: bob).status == 200)
        }
        for token in ["b1", "b2"] {
            #expect(try await harness.admin("DELETE", "/notifications/push/v1/tokens/\(token)", appId: "app1").status == 200)
        }
        // bob has 1 token and a bound of 3: the next registration counts, deletes nothing
        #expect(try await harness.register("b4", platform: "apns_ios_device", session: bob).status == 200)
        #expect(try tokens("bob") == ["b3", "b4"])
        // a token moving to alice leaves bob's bound too high, and alice's right
        #expect(try await harness.register("b3", platform: "apns_ios_device", session: alice).status == 200)
        for token in ["b5", "b6"] { #expect(try await harness.register(token, platform: "apns_ios_device", session: bob).status == 200) }
        #expect(try tokens("bob") == ["b4", "b5", "b6"])
        #expect(try await harness.register("b7", platform: "apns_ios_device", session: bob).status == 200)
        #expect(try tokens("bob") == ["b5", "b6", "b7"])
        #expect(try tokens("alice") == ["b3"])
    }
}
