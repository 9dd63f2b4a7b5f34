import CurlHTTP
import Foundation
import HTTPServer
import PushCore
import PushMocks
import PushService
import PushStore
import PushTestSupport
import ServerSupport
import Testing

/// Issue 24, item 2: no server-side request forgery. Each finding, as it was tried against the
/// service: webhook URLs to loopback, link-local and private addresses (numeric forms
/// included) were accepted and the loopback ones called; a `token_uri` of `file:///…` was
/// accepted and read by libcurl; a `project_id` of `../../../x?y#z` put the OAuth bearer on
/// another path. In the heavy group of `Server/Scripts/ci.sh`.
@Suite struct OutboundRequestTests {
    /// The service with the defaults of a real one: no private destination allowed, webhooks
    /// `https` only (the harness otherwise allows what its own receivers and mocks need).
    static func strictService(
        sender: Harness.SenderChoice = .none, _ more: @escaping @Sendable (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> Harness {
        try await Harness.start(sender: sender) { configuration in
            configuration.allowInsecureWebhooks = false
            configuration.allowPrivateDestinations = []
            more(&configuration)
        }
    }

    // MARK: Webhooks at save time

    static let refusedWebhooks: [(url: String, problem: String)] = [
        ("https://127.0.0.1/hook", "127.0.0.1 is loopback"),
        ("https://localhost:8443/hook", "localhost is loopback"),
        ("https://[::1]/hook", "::1 is loopback"),
        ("https://169.254.169.254/latest/meta-data/", "169.254.169.254 is link-local"),
        ("https://10.0.0.7/hook", "10.0.0.7 is private"),
        ("https://192.168.1.20/hook", "192.168.1.20 is private"),
        ("https://172.20.0.5/hook", "172.20.0.5 is private"),
        ("https://0x7f000001/hook", "127.0.0.1 is loopback"),
        ("https://2130706433/hook", "127.0.0.1 is loopback"),
        ("https://0177.0.0.1/hook", "127.0.0.1 is loopback"),
        ("https://[::ffff:169.254.169.254]/hook", "::ffff:169.254.169.254 is link-local (IPv4-mapped 169.254.169.254)"),
        ("https://100.64.0.1/hook", "100.64.0.1 is carrier-grade NAT (shared address space)"),
        ("https://0.0.0.0/hook", "0.0.0.0 is unspecified (\"this network\")"),
        ("https://[fd00::1]/hook", "fd00::1 is unique local (private IPv6)"),
        ("https://224.0.0.1/hook", "224.0.0.1 is multicast"),
        ("http://127.0.0.1:9/hook", "plain http is not allowed, only https"),
        ("http://localhost/hook", "plain http is not allowed, only https"),
        ("http://webhooks.example/hook", "plain http is not allowed, only https"),
    ]

    /// Every form of the finding is refused when an app is created and when it is updated: 400
    /// naming `webhookUrl` and saying why; nothing is stored.
    @Test(arguments: refusedWebhooks)
    func aWebhookToAForbiddenDestinationIsRefusedAtSave(url: String, problem: String) async throws {
        let harness = try await Self.strictService()
        let created = try await harness.admin("POST", "/apps", ["appId": "hooked", "webhookUrl": url])
        #expect(created.status == 400, "\(url): \(created.status)")
        #expect(created.errorCode == "ERR_BAD_REQUEST")
        #expect(created.errorDetails == ["webhookUrl": problem], "\(url)")
        #expect(created.errorMessage?.contains("refused: \(problem)") == true, "\(created.errorMessage ?? "")")
        #expect(try await harness.admin("GET", "/apps/hooked").status == 404, "nothing was created")

        #expect(try await harness.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        let updated = try await harness.admin("PUT", "/apps/app1", ["webhookUrl": url])
        #expect(updated.status == 400 && updated.errorDetails == ["webhookUrl": problem], "\(url)")
        #expect(try harness.store.app(id: "app1")?.webhookURL == nil, "nothing was changed")
    }

    /// A public https URL is accepted, and so is a name that does not resolve now (every
    /// connection is checked anyway).
    @Test func aPublicOrUnresolvedWebhookIsAccepted() async throws {
        let harness = try await Self.strictService()
        for (index, url) in ["https://93.184.215.14/hook", "https://[2606:4700::1111]/hook", "https://push-hooks.invalid/events"]
            .enumerated()
        {
            let created = try await harness.admin("POST", "/apps", ["appId": "app\(index)", "webhookUrl": url])
            #expect(created.status == 200, "\(url): \(created.errorDetails)")
        }
    }

    /// `--seed-webhook-url` writes the seed app straight into the store: a forbidden one stops
    /// the start with the reason, instead of an app whose events are never posted.
    @Test func aForbiddenSeedWebhookStopsTheStart() async throws {
        await #expect {
            _ = try await Self.strictService {
                $0.seedDev = true
                $0.seedWebhookURL = "http://169.254.169.254/latest"
            }
        } throws: { error in
            "\(error)" == "--seed-webhook-url: destination refused: plain http is not allowed, only https "
                + "(see --allow-insecure-webhooks and --allow-private-destinations)"
        }
        let allowed = try await Self.strictService {
            $0.seedDev = true
            $0.seedWebhookURL = "https://hooks.invalid/events"
        }
        #expect(try allowed.store.app(id: "dev-app")?.webhookURL == "https://hooks.invalid/events")
    }

    // MARK: Webhooks at connection time

    /// A webhook URL stored before the check existed (written straight into the store, as an
    /// old row is) is never connected to: a listener on its address sees no connection, and
    /// the event stays queued, retried, with the reason as its last error. A name goes through
    /// DNS and libcurl's open-socket check: with `::1` allowed, `localhost` passes the check
    /// before the connection, and its 127.0.0.1 address is refused at the socket.
    @Test(arguments: [
        ("https://127.0.0.1:{port}/hook", [String](), "destination refused: 127.0.0.1 is loopback"),
        ("http://127.0.0.1:{port}/hook", [], "destination refused: plain http is not allowed, only https"),
        ("https://localhost:{port}/hook", ["::1"], "destination refused: 127.0.0.1 is loopback"),
    ])
    func aStoredLoopbackWebhookIsNeverConnectedTo(template: String, allowed: [String], reason: String) async throws {
        let listener = try ConnectionProbe(host: "127.0.0.1")
        let blocks = try allowed.map(CIDRBlock.init(parsing:))
        let harness = try await Self.strictService { $0.allowPrivateDestinations = blocks }
        let url = template.replacingOccurrences(of: "{port}", with: String(listener.port))
        try harness.store.createApp(AppRecord(id: "old", name: "Old app", webhookURL: url, sealedWebhookSecret: nil, createdAt: Date()))
        let alice = try await harness.makeUser("alice", appId: "old")
        #expect(try await harness.client("POST", "/users/bob/conversation/delivered", session: alice, ["messageId": "1"]).status == 200)

        let retried = try await eventually {
            try Self.webhookJobs(harness.store).contains { $0.attempts >= 3 && $0.lastError == reason && $0.state == "pending" }
        }
        #expect(retried, "\((try? Self.webhookJobs(harness.store)) ?? [])")
        #expect(try Self.webhookJobs(harness.store).count == 1, "the event is kept")
        #expect(!listener.connected, "nothing connected to \(url)")
    }

    /// `--allow-insecure-webhooks`: http to a loopback address is accepted and posted to; http
    /// to any other address is still refused.
    @Test func theInsecureFlagAllowsHTTPToLoopbackOnly() async throws {
        let received = Locked(0)
        let receiver = try HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 1), tooLarge: HTTPResponse(status: 413)) {
            _ in
            received.withLock { $0 += 1 }
            return HTTPResponse(status: 200)
        }
        defer { receiver.stop() }
        let harness = try await Self.strictService { $0.allowInsecureWebhooks = true }
        let local = try await harness.admin("POST", "/apps", ["appId": "app1", "webhookUrl": "http://127.0.0.1:\(receiver.port)/hook"])
        #expect(local.status == 200)
        let alice = try await harness.makeUser("alice")
        #expect(try await harness.client("POST", "/users/bob/conversation/delivered", session: alice, ["messageId": "1"]).status == 200)
        #expect(await eventually { received.withLock { $0 } == 1 })

        for (url, problem) in [
            ("http://10.1.2.3/hook", "10.1.2.3 is not a loopback address (plain http goes to loopback addresses only)"),
            ("http://192.168.1.20:8080/hook", "192.168.1.20 is not a loopback address (plain http goes to loopback addresses only)"),
            ("http://93.184.215.14/hook", "93.184.215.14 is not a loopback address (plain http goes to loopback addresses only)"),
            ("https://10.1.2.3/hook", "10.1.2.3 is private"),
        ] {
            let refused = try await harness.admin("PUT", "/apps/app1", ["webhookUrl": url])
            #expect(refused.status == 400 && refused.errorDetails == ["webhookUrl": problem], "\(url): \(refused.errorDetails)")
        }
        // localhost is loopback: http to it is for development too.
        #expect(try await harness.admin("PUT", "/apps/app1", ["webhookUrl": "http://localhost:1/hook"]).status == 200)
    }

    /// `--allow-private-destinations` allows its blocks and nothing else: at save time, and at
    /// connection time (a post reaches a listener in an allowed block; a stored URL just
    /// outside it is never connected to).
    @Test func theAllowFlagAllowsExactlyItsBlocks() async throws {
        let inside = try ConnectionProbe(host: "127.0.0.2")
        let outside = try ConnectionProbe(host: "127.0.0.1")
        let harness = try await Self.strictService {
            $0.allowPrivateDestinations = [try! CIDRBlock(parsing: "10.0.0.0/8"), try! CIDRBlock(parsing: "127.0.0.2")]
            $0.webhookTimeout = 1
        }
        for url in ["https://10.20.30.40/hook", "https://10.255.255.254:8443/x", "https://127.0.0.2:\(inside.port)/hook"] {
            #expect(try await harness.admin("POST", "/apps", ["appId": "a\(url.count)", "webhookUrl": url]).status == 200, "\(url)")
        }
        for (url, problem) in [
            ("https://127.0.0.1/hook", "127.0.0.1 is loopback"), ("https://127.0.0.3/hook", "127.0.0.3 is loopback"),
            ("https://192.168.0.1/hook", "192.168.0.1 is private"), ("https://172.16.0.1/hook", "172.16.0.1 is private"),
            ("https://169.254.169.254/", "169.254.169.254 is link-local"),
            ("http://10.20.30.40/hook", "plain http is not allowed, only https"),
        ] {
            let refused = try await harness.admin("POST", "/apps", ["appId": "refused", "webhookUrl": url])
            #expect(refused.status == 400 && refused.errorDetails == ["webhookUrl": problem], "\(url): \(refused.errorDetails)")
        }

        // At connection time: one app posts into the allowed block, one (an old row) just outside.
        #expect(
            try await harness.admin("POST", "/apps", ["appId": "in", "webhookUrl": "https://127.0.0.2:\(inside.port)/hook"]).status == 200)
        try harness.store.createApp(
            AppRecord(
                id: "out", name: "Out", webhookURL: "https://127.0.0.1:\(outside.port)/hook", sealedWebhookSecret: nil, createdAt: Date()))
        for app in ["in", "out"] {
            let user = try await harness.makeUser("alice", appId: app)
            #expect(try await harness.client("POST", "/users/bob/conversation/delivered", session: user, ["messageId": "1"]).status == 200)
        }
        #expect(await eventually { inside.connected }, "the allowed block is connected to")
        #expect(
            try await eventually {
                try Self.webhookJobs(harness.store).contains {
                    $0.appId == "out" && $0.lastError == "destination refused: 127.0.0.1 is loopback"
                }
            })
        #expect(!outside.connected, "127.0.0.1 is outside the allowed blocks")
    }

    // MARK: token_uri

    static let refusedTokenURIs: [(uri: String, problem: String)] = [
        ("file:///etc/passwd", "the scheme is file, not https"),
        ("http://127.0.0.1:9/token", "plain http is not allowed, only https"),
        ("http://oauth2.googleapis.com/token", "plain http is not allowed, only https"),
        ("https://127.0.0.1:9/token", "127.0.0.1 is loopback"),
        ("https://169.254.169.254/computeMetadata/v1/token", "169.254.169.254 is link-local"),
        ("https://8.8.8.8/token", "8.8.8.8 is not in the allowed private destinations"),
        ("https://oauth.invalid/token", "oauth.invalid does not resolve"),
        ("gopher://127.0.0.1:9/_x", "the scheme is gopher, not https"),
    ]

    /// A `token_uri` that is not https, or not Google's, is refused at save: 400 naming
    /// `serviceAccountCreds.token_uri`, saying why. Google's three endpoints are accepted.
    @Test(arguments: refusedTokenURIs)
    func aTokenURIThatIsNotGooglesIsRefusedAtSave(uri: String, problem: String) async throws {
        let harness = try await Self.strictService()
        #expect(try await harness.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        let saved = try await harness.admin("POST", "/notifications/push/v1/providers/fcm", appId: "app1", Self.fcmProvider(tokenURI: uri))
        #expect(saved.status == 400, "\(uri): \(saved.status)")
        #expect(saved.errorCode == "ERR_BAD_REQUEST")
        #expect(saved.errorDetails == ["serviceAccountCreds.token_uri": problem], "\(uri)")
        #expect(saved.errorMessage?.contains(problem) == true)
        #expect(try harness.store.provider(appId: "app1", id: "fcm-1") == nil)
    }

    @Test func googlesTokenURIsAndAnAllowedTestServerAreAccepted() async throws {
        let harness = try await Self.strictService()
        #expect(try await harness.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        for (index, uri) in [
            "https://oauth2.googleapis.com/token", "https://accounts.google.com/o/oauth2/token",
            "https://www.googleapis.com/oauth2/v4/token",
        ].enumerated() {
            let saved = try await harness.admin(
                "POST", "/notifications/push/v1/providers/fcm", appId: "app1", Self.fcmProvider("fcm-\(index)", tokenURI: uri))
            #expect(saved.status == 200, "\(uri): \(saved.errorDetails)")
        }
        // A test server's: only with its block allowed.
        let allowing = try await Self.strictService { $0.allowPrivateDestinations = [try! CIDRBlock(parsing: "127.0.0.0/8")] }
        #expect(try await allowing.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        let mock = try await allowing.admin(
            "POST", "/notifications/push/v1/providers/fcm", appId: "app1", Self.fcmProvider(tokenURI: "https://127.0.0.1:9/token"))
        #expect(mock.status == 200, "\(mock.errorDetails)")
    }

    /// A provider saved before the check with a forbidden `token_uri` (an old row): its pushes
    /// wait, as a misconfigured provider's do, with the reason as their last error, and the
    /// token_uri is never asked (the mock sees no token request; libcurl never opens the file).
    @Test(arguments: [
        ("{mock}/token", "provider misconfigured: destination refused: 127.0.0.1 is loopback"),
        ("file:///etc/passwd", "provider misconfigured: destination refused: the scheme is file, not https"),
    ])
    func aStoredForbiddenTokenURIIsNeverAsked(template: String, reason: String) async throws {
        let mock = try await offThePool { try MockPushServer() }
        let harness = try await Self.strictService(sender: .delivery) {
            $0.delivery.fcmBaseURL = mock.baseURL
            $0.delivery.caFile = mock.credentials.caFile
        }
        #expect(try await harness.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        let provider = Self.fcmProvider(tokenURI: "https://oauth2.googleapis.com/token", key: mock.credentials.fcmPrivateKeyPEM)
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/fcm", appId: "app1", provider).status == 200)
        try Self.changeStoredFCMSettings(harness.store) { $0["tokenUri"] = template.replacingOccurrences(of: "{mock}", with: mock.baseURL) }

        let requestId = try await Self.sendToFCMToken(harness)
        #expect(
            try await eventually {
                try harness.store.pushJobLog(appId: "app1", requestId: requestId).first?.lastError == reason
            }, "\(((try? harness.store.pushJobLog(appId: "app1", requestId: requestId)) ?? []).map { $0.lastError ?? "nil" })")
        let entry = try #require(try harness.store.pushJobLog(appId: "app1", requestId: requestId).first)
        #expect(entry.finishedAt == nil, "the push waits: nothing is dropped")
        #expect(mock.log(kind: "oauth").isEmpty && mock.log(kind: "fcm").isEmpty, "\(mock.log())")
    }

    // MARK: project_id

    /// `project_id` enters the FCM URL's path: letters, digits, `-`, `.`, `:`, `_`, at most 128.
    @Test(arguments: [
        "../../../x?y#z", "a/b", "..", ".hidden", "-dash", "demo project", "demo%2Fproject", "x?y", String(repeating: "p", count: 129),
    ])
    func aProjectIdThatIsNotOneIsRefusedAtSave(projectId: String) async throws {
        let harness = try await Harness.start()
        #expect(try await harness.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        var provider = Self.fcmProvider(tokenURI: "https://oauth2.googleapis.com/token")
        var account = provider["serviceAccountCreds"] as! [String: Any]
        account["project_id"] = projectId
        provider["serviceAccountCreds"] = account
        let saved = try await harness.admin("POST", "/notifications/push/v1/providers/fcm", appId: "app1", provider)
        #expect(saved.status == 400, "\(projectId)")
        #expect(saved.errorDetails == ["serviceAccountCreds.project_id": "not a project id"], "\(projectId): \(saved.errorDetails)")
        #expect(try harness.store.provider(appId: "app1", id: "fcm-1") == nil)
    }

    @Test(arguments: ["demo-project", "example.com:my-project", "p_1", String(repeating: "p", count: 128)])
    func aProjectIdIsAccepted(projectId: String) async throws {
        let harness = try await Harness.start()
        #expect(try await harness.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        var provider = Self.fcmProvider(tokenURI: "https://oauth2.googleapis.com/token")
        var account = provider["serviceAccountCreds"] as! [String: Any]
        account["project_id"] = projectId
        provider["serviceAccountCreds"] = account
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/fcm", appId: "app1", provider).status == 200)
    }

    /// A stored `project_id` (an old row) is percent-encoded as one path segment: the send (and
    /// its bearer token) stays on `/v1/projects/<encoded>/messages:send`.
    @Test(arguments: [
        ("../../../x?y#z", "/v1/projects/..%2F..%2F..%2Fx%3Fy%23z/messages:send"),
        ("..", "/v1/projects/%2E%2E/messages:send"),
    ])
    func aStoredProjectIdStaysInsideItsPathSegment(projectId: String, path: String) async throws {
        let mock = try await offThePool { try MockPushServer() }
        let harness = try await Harness.start(sender: .delivery) {
            $0.delivery.fcmBaseURL = mock.baseURL
            $0.delivery.caFile = mock.credentials.caFile
        }
        #expect(try await harness.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        let provider = Self.fcmProvider(tokenURI: mock.baseURL + "/token", key: mock.credentials.fcmPrivateKeyPEM)
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/fcm", appId: "app1", provider).status == 200)
        try Self.changeStoredFCMSettings(harness.store) { $0["projectId"] = projectId }

        _ = try await Self.sendToFCMToken(harness)
        #expect(await eventually { mock.log(kind: "fcm").count == 1 }, "\(mock.log())")
        let sent = try #require(mock.log(kind: "fcm").first)
        #expect(sent["path"] as? String == path)
        #expect(sent["status"] as? Int == 200, "the bearer went where it belongs: \(sent)")
    }

    /// An APNs device token enters the APNs URL's path: it is checked to be hex before any
    /// request, so `../` in a registered token never reaches APNs.
    @Test func anAPNsTokenThatIsNotHexIsNeverSent() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let harness = try await Harness.start(sender: .delivery) {
            $0.delivery.apnsBaseURL = mock.baseURL
            $0.delivery.caFile = mock.credentials.caFile
        }
        #expect(try await harness.admin("POST", "/apps", ["appId": "app1"]).status == 200)
        let apns: [String: Any] = [
            "providerId": "apns-1", "keyId": MockPushServer.keyId, "teamId": MockPushServer.teamId, "bundleId": "com.example.app",
            "p8Key": mock.credentials.apnsPrivateKeyPEM, "production": false,
        ]
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", apns).status == 200)
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register("aa/../../../x?y#z", platform: "apns_ios_device", session: bob).status == 200)
        let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", Self.chat)
        let requestId = try #require(sent.data["requestId"] as? String)
        #expect(
            try await eventually {
                try harness.store.pushJobLog(appId: "app1", requestId: requestId).first?.finishedAt != nil
            })
        #expect(try harness.store.pushJobLog(appId: "app1", requestId: requestId).first?.lastError == "BadDeviceToken")
        #expect(mock.log().isEmpty, "\(mock.log())")
    }

    // MARK: The checks in CurlHTTP

    /// libcurl's URL parser decides the host: the numeric forms are checked as the address
    /// libcurl connects to, and so is whatever a parser that differs from libcurl's would miss.
    @Test(arguments: [
        ("https://0x7f000001/", "127.0.0.1 is loopback"), ("https://2130706433/", "127.0.0.1 is loopback"),
        ("https://0177.0.0.1/", "127.0.0.1 is loopback"), ("https://127.1/", "127.0.0.1 is loopback"),
        ("https://0/", "0.0.0.0 is unspecified (\"this network\")"), ("https://evil.example\\@127.0.0.1/", "127.0.0.1 is loopback"),
        ("https://user:pw@169.254.169.254:443/", "169.254.169.254 is link-local"), ("https://[fe80::1%25eth0]/", "fe80::1 is link-local"),
        ("https://[::ffff:7f00:1]/", "::ffff:127.0.0.1 is loopback (IPv4-mapped 127.0.0.1)"),
        ("https://[64:ff9b::a9fe:a9fe]/", "64:ff9b::a9fe:a9fe is link-local (NAT64 169.254.169.254)"),
        ("https://[2002:c0a8:101::1]/", "2002:c0a8:101::1 is private (6to4 192.168.1.1)"),
        ("https://LOCALHOST./", "LOCALHOST. is loopback"), ("https://api.localhost/", "api.localhost is loopback"),
        ("file:///etc/passwd", "the scheme is file, not https"), ("FILE://localhost/etc/passwd", "the scheme is file, not https"),
        ("gopher://example.com/", "the scheme is gopher, not https"), ("dict://127.0.0.1:11211/", "the scheme is dict, not https"),
        ("example.com/hook", "the URL is not one libcurl accepts"), ("https://a b/", "the URL is not one libcurl accepts"),
    ])
    func urlsAreCheckedAsLibcurlReadsThem(url: String, reason: String) {
        #expect(DestinationPolicy().screening(url) == DestinationPolicy.Refusal(reason), "\(url)")
    }

    @Test func policiesAllowWhatTheySay() throws {
        let strict = DestinationPolicy()
        #expect(strict.screening("https://8.8.8.8/x") == nil && strict.screening("HTTPS://webhooks.example/x") == nil)
        #expect(strict.check("https://push-hooks.invalid/x") == .unresolved(host: "push-hooks.invalid"))
        #expect(strict.check("https://93.184.215.14/x") == .allowed([IPAddress("93.184.215.14")!]))
        #expect(strict.check("https://localhost/x") == .refused(DestinationPolicy.Refusal("localhost is loopback")))

        let insecure = DestinationPolicy(allowsInsecureLoopback: true)
        for url in ["http://127.0.0.1:8080/x", "http://[::1]/x", "http://localhost/x", "https://127.0.0.5/x", "http://[::ffff:127.0.0.1]/"]
        {
            #expect(insecure.screening(url) == nil, "\(url)")
        }
        #expect(insecure.screening("http://10.0.0.1/") != nil && insecure.screening("https://10.0.0.1/") != nil)

        let allowing = DestinationPolicy(allowedBlocks: [try CIDRBlock(parsing: "10.0.0.0/8"), try CIDRBlock(parsing: "fd00::/8")])
        #expect(allowing.screening("https://10.1.2.3/") == nil && allowing.screening("https://[fd00::5]/") == nil)
        #expect(allowing.screening("https://[::ffff:10.1.2.3]/") == nil, "the mapped form of an allowed address")
        #expect(allowing.screening("https://11.0.0.1/") == nil, "public")
        #expect(allowing.screening("https://172.16.0.1/") == DestinationPolicy.Refusal("172.16.0.1 is private"))
        #expect(allowing.screening("http://10.1.2.3/") == DestinationPolicy.Refusal("plain http is not allowed, only https"))

        var only = allowing
        only.onlyAllowedBlocks = true
        #expect(only.screening("https://10.1.2.3/") == nil)
        #expect(only.screening("https://8.8.8.8/") == DestinationPolicy.Refusal("8.8.8.8 is not in the allowed private destinations"))
        #expect(only.screening("https://127.0.0.1/") == DestinationPolicy.Refusal("127.0.0.1 is loopback"))
    }

    /// libcurl reuses connections: a request whose policy refuses 127.0.0.1 must not go out on
    /// a connection to 127.0.0.1 that an unchecked request opened (`localhost` passes the check
    /// before the connection here: `::1` is allowed). The pre-request check refuses it.
    @Test func aReusedConnectionIsCheckedForEachRequest() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let client = HTTP2Client(configuration: HTTP2Client.Configuration(caFile: mock.credentials.caFile), name: "test-reuse")
        defer { client.shutdown() }
        let url = "https://localhost:\(mock.port)/token"
        let body = Array("grant_type=none&assertion=none".utf8)
        guard case .success(let first) = await client.send(OutboundRequest(url: url, body: body)) else {
            Issue.record("the unchecked request got no answer")
            return
        }
        #expect(first.status == 400)
        let policy = DestinationPolicy(allowedBlocks: [try CIDRBlock(parsing: "::1")])
        let second = await client.send(OutboundRequest(url: url, body: body, destinationPolicy: policy))
        guard case .failure(let error) = second else {
            Issue.record("the checked request was sent: \(second)")
            return
        }
        #expect(error.isDestinationRefused && error.message == "destination refused: 127.0.0.1 is loopback", "\(error)")
        #expect(mock.log(kind: "oauth").count == 1, "\(mock.log())")
    }

    // MARK: Helpers

    static var chat: [String: Any] {
        [
            "type": "chat", "recipients": [["uid": "bob"]],
            "message": ["id": "m1", "sender": ["uid": "alice", "name": "Alice"], "receiver": ["uid": "bob"], "text": "Hi"],
        ]
    }

    static func fcmProvider(_ id: String = "fcm-1", tokenURI: String, key: String = Harness.testPEM) -> [String: Any] {
        [
            "providerId": id,
            "serviceAccountCreds": [
                "project_id": "demo-project", "client_email": "push@demo-project.iam.gserviceaccount.com", "private_key": key,
                "private_key_id": "kid-1", "token_uri": tokenURI,
            ],
        ]
    }

    /// Rewrites the stored settings of app1's `fcm-1`, as a row saved before the checks would be.
    static func changeStoredFCMSettings(_ store: any ServiceStore, _ change: (inout [String: Any]) -> Void) throws {
        var record = try #require(try store.provider(appId: "app1", id: "fcm-1"))
        var settings = try #require(try JSONSerialization.jsonObject(with: record.settings) as? [String: Any])
        change(&settings)
        record.settings = try JSONSerialization.data(withJSONObject: settings)
        try store.updateProvider(record)
    }

    /// Registers an FCM token for bob and sends him a chat push; returns the request id.
    static func sendToFCMToken(_ harness: Harness) async throws -> String {
        let bob = try await harness.makeUser("bob")
        #expect(try await harness.register("fcm-token-1", platform: "fcm_ios", session: bob).status == 200)
        let sent = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", chat)
        #expect(sent.status == 200)
        return try #require(sent.data["requestId"] as? String)
    }

    struct WebhookJobRow: CustomStringConvertible {
        let appId: String
        let state: String
        let attempts: Int
        let lastError: String?
        var description: String { "\(appId) \(state) attempts=\(attempts) lastError=\(lastError ?? "nil")" }
    }

    /// The webhook jobs as stored (state, attempts, last error).
    static func webhookJobs(_ store: any ServiceStore) throws -> [WebhookJobRow] {
        let columns = StoreTable.webhookJobs.columns
        var rows: [WebhookJobRow] = []
        try store.exportRows(table: .webhookJobs, batchSize: 100) { batch in
            for row in batch {
                func value(_ name: String) -> StoreValue { row[columns.firstIndex(of: name)!] }
                func text(_ name: String) -> String? {
                    if case .text(let text) = value(name) { return text }
                    return nil
                }
                var attempts = 0
                if case .int(let count) = value("attempts") { attempts = Int(count) }
                rows.append(
                    WebhookJobRow(
                        appId: text("app_id") ?? "", state: text("state") ?? "", attempts: attempts, lastError: text("last_error")))
            }
        }
        return rows
    }
}

/// A TCP listener that never accepts: a connection made to it (TCP handshake done by the
/// kernel) waits in its backlog, where `poll` sees it. Proves that nothing connected.
final class ConnectionProbe: @unchecked Sendable {
    // @unchecked: the descriptor is set once; poll and close are thread-safe.
    let descriptor: Int32
    let port: Int

    init(host: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTP.Failure.connect }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound =
            inet_pton(AF_INET, host, &address.sin_addr) == 1
            && withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
        guard bound else {
            close(fd)
            throw RawHTTP.Failure.connect
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// Whether a connection is waiting to be accepted.
    var connected: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }
}

extension RawHTTP.Response {
    /// The error answer's `details` (field → problem).
    fileprivate var errorDetails: [String: String] { (json["error"] as? [String: Any])?["details"] as? [String: String] ?? [:] }
    /// The error answer's `message`.
    fileprivate var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
}
