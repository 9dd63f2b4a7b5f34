import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// The simulated service's contract rules agree with the `Contract/` fixtures, and the SDK
/// classifies the fixtures' error envelopes as they say.
@Suite("Wire contract")
struct ContractTests {
    static func substitute(_ value: Any) -> Any {
        if let text = value as? String, text.hasPrefix("{"), text.hasSuffix("}") { return "value-of-" + text.dropFirst().dropLast() }
        if let object = value as? [String: Any] { return object.mapValues(substitute) }
        return value
    }

    static func request(_ fixture: [String: Any]) -> (method: String, path: String, headers: [String: String], body: Data?) {
        let request = fixture["request"] as? [String: Any] ?? [:]
        let headers = (substitute(request["headers"] ?? [:]) as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        var body: Data?
        if let object = request["body"] as? [String: Any] {
            body = try? JSONSerialization.data(withJSONObject: substitute(object))
        }
        var path = request["path"] as? String ?? ""
        for placeholder in ["{uid}", "{guid}", "{parentId}", "{id}", "{sessionId}"] {
            path = path.replacingOccurrences(of: placeholder, with: "p1")
        }
        return (request["method"] as? String ?? "", path, headers, body)
    }

    @Test("Every client fixture is a valid request under the simulator's rules")
    func fixturesPass() throws {
        let fixtures = try contractFixtures("client")
        #expect(fixtures.count >= 4)
        for (name, json) in fixtures {
            let r = Self.request(json)
            #expect(WireContract.match(method: r.method, path: r.path) != nil, "\(name) has no route")
            #expect(WireContract.violations(method: r.method, path: r.path, headers: r.headers, body: r.body) == [], "\(name)")
        }
    }

    @Test("Broken variants of the fixtures are caught")
    func brokenVariantsFail() throws {
        for (name, json) in try contractFixtures("client") {
            let r = Self.request(json)
            var noAuth = r.headers
            noAuth["authToken"] = nil
            #expect(
                !WireContract.violations(method: r.method, path: r.path, headers: noAuth, body: r.body).isEmpty, "\(name) without authToken"
            )
            // Without its first key that is not optional (`environment`, `encryption` and `languages` are).
            if var object = r.body.flatMap({ try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }),
                let key = object.keys.sorted().first(where: { !["environment", "encryption", "languages"].contains($0) })
            {
                if let languages = object["languages"] as? [String] {
                    // 11 tags, tags that are not tags, a tag over 35 characters, a number, not an array.
                    let long = "ab-" + Array(repeating: "abcdefgh", count: 4).joined(separator: "-")
                    let variants: [(String, Any)] = [
                        ("11 tags", (1...11).map { "en-x\($0)" }),
                        ("a tag with an underscore", languages + ["de_CH"]), ("a tag and a newline", languages + ["en\n"]),
                        ("a 38-character tag", languages + [long]),
                        ("a number", languages + [42] as [Any]), ("a string", "de-CH"),
                    ]
                    for (what, value) in variants {
                        var broken = object
                        broken["languages"] = value
                        let body = try JSONSerialization.data(withJSONObject: broken)
                        #expect(
                            !WireContract.violations(method: r.method, path: r.path, headers: r.headers, body: body).isEmpty,
                            "\(name) with \(what) in languages")
                    }
                }
                if var keys = object["encryption"] as? [String: Any] {
                    // A 15-byte auth secret is refused.
                    keys["auth"] = "AAAAAAAAAAAAAAAAAAAA"
                    var broken = object
                    broken["encryption"] = keys
                    let body = try JSONSerialization.data(withJSONObject: broken)
                    #expect(
                        !WireContract.violations(method: r.method, path: r.path, headers: r.headers, body: body).isEmpty,
                        "\(name) with a 15-byte auth")
                }
                object[key] = nil
                let body = try JSONSerialization.data(withJSONObject: object)
                #expect(
                    !WireContract.violations(method: r.method, path: r.path, headers: r.headers, body: body).isEmpty,
                    "\(name) without \(key)")
            }
        }
        let bad = try JSONSerialization.data(withJSONObject: ["fcmToken": "t", "platform": "ios", "providerId": "p", "timezone": "UTC"])
        let headers = ["appid": "a", "authToken": "t", "Content-Type": "application/json", "Accept": "application/json"]
        #expect(!WireContract.violations(method: "POST", path: "/notifications/push/v1/tokens", headers: headers, body: bad).isEmpty)
    }

    /// A fixture value with its `{placeholders}` replaced from `values`.
    static func fill(_ value: Any, _ values: [String: String]) -> Any {
        if let text = value as? String, text.hasPrefix("{"), text.hasSuffix("}") {
            return values[String(text.dropFirst().dropLast())] ?? text
        }
        if let object = value as? [String: Any] { return object.mapValues { fill($0, values) } }
        return value
    }

    @Test("The SDK sends exactly the fixtures' token requests: URL on the default host, headers and body")
    func sdkRequestsMatchFixtures() async throws {
        let fixtures = Dictionary(uniqueKeysWithValues: try contractFixtures("client").map { ($0.name, $0.json) })
        let recorder = RecordingTransport()
        let device = SimulatedDevice(transport: recorder)
        recorder.forward(to: device.service)
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle()
        app.sdk.registerFCMToken("fcm-1")
        #expect(await device.settle())
        _ = await awaitResult { (done: @escaping @Sendable (PNResult<Void>) -> Void) in app.sdk.unregisterTokens(completion: done) }

        // WIRE-CONTRACT §1: the default base URL is https://{appId}.apiclient-{region}.cometchat.io/v3.0
        let base = "https://app1.apiclient-us.cometchat.io/v3.0"
        let session = ["appId": "app1", "authToken": "alice-token", "providerId": "apns-provider", "timezone": "Europe/Berlin"]
        for (fixtureName, token) in [
            ("register-apns-token.json", SimulatedDevice.token(1).hex as String?), ("register-fcm-token.json", "fcm-1"),
            ("unregister-tokens.json", nil),
        ] {
            let fixture = try #require(fixtures[fixtureName])
            let expected = try #require(fixture["request"] as? [String: Any])
            var values = session
            values["token"] = token
            let method = try #require(expected["method"] as? String)
            let url = base + (try #require(expected["path"] as? String))
            let headers = try #require(Self.fill(expected["headers"] ?? [:], values) as? [String: String])
            let body = (expected["body"] as? [String: Any]).map { Self.fill($0, values) } as? [String: String]
            // The request of this fixture: same method and URL, and for a registration the fixture's platform
            let sent = try #require(
                recorder.requests.first { request in
                    request.method == method && request.url.absoluteString == url
                        && (body == nil || Self.json(request.body)?["platform"] == body?["platform"])
                }, "\(fixtureName): no \(method) \(url) among \(recorder.requests.map { "\($0.method) \($0.url)" })")
            #expect(sent.headers == headers, "\(fixtureName)")
            if let body {
                #expect(Self.json(sent.body) == body, "\(fixtureName)")
            } else {
                #expect(sent.body == nil || sent.body?.isEmpty == true, "\(fixtureName)")
            }
        }
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("The SDK sends exactly the fixtures' preferences and read requests to a self-hosted service")
    func sdkPreferencesRequestsMatchFixtures() async throws {
        let fixtures = Dictionary(uniqueKeysWithValues: try contractFixtures("client").map { ($0.name, $0.json) })
        let recorder = RecordingTransport()
        let device = SimulatedDevice(transport: recorder)
        recorder.forward(to: device.service)
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let host = "https://push.example.com"
        let app = await device.launchAndSettle(
            PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", clientHost: host))
        let sdk = app.sdk
        typealias Done = @Sendable (PNResult<PNNotificationPreferences>) -> Void
        // In the fixtures' order: each call, then the fixture its request must equal.
        let calls: [(String, (@escaping Done) -> Void)] = [
            ("preferences-get.json", { sdk.getPreferences(completion: $0) }),
            ("preferences-mute.json", { sdk.setConversationMuted(userId: "bob", until: nil, completion: $0) }),
            ("preferences-unmute.json", { sdk.unmuteConversation(userId: "bob", completion: $0) }),
            ("preferences-group-level.json", { sdk.setGroupNotificationLevel(.mentionsOnly, groupId: "team", completion: $0) }),
            (
                "preferences-quiet-hours.json",
                {
                    sdk.setQuietHours(
                        start: DateComponents(hour: 22, minute: 0), end: DateComponents(hour: 7, minute: 0), includeCalls: false,
                        completion: $0)
                }
            ),
            ("preferences-clear-quiet-hours.json", { sdk.clearQuietHours(completion: $0) }),
        ]
        for (_, call) in calls { _ = await awaitResult { (done: @escaping Done) in call(done) } }
        _ = await awaitResult { (done: @escaping @Sendable (PNResult<Void>) -> Void) in
            sdk.markConversationRead(userId: "bob", unreadCount: 2, completion: done)
        }
        let values = ["appId": "app1", "authToken": "alice-token", "uid": "bob", "guid": "team"]
        let sent = recorder.requests.filter {
            $0.url.absoluteString.hasPrefix(host + "/notifications/push/v1/") && !$0.url.path.hasSuffix("/tokens")
                && !$0.url.path.hasSuffix("/changes")
        }
        let names = calls.map(\.0) + ["mark-read-user.json"]
        #expect(sent.count == names.count, "\(sent.map { "\($0.method) \($0.url)" })")
        for (name, request) in zip(names, sent) {
            let expected = try #require(fixtures[name]?["request"] as? [String: Any], "\(name)")
            var path = try #require(expected["path"] as? String)
            for (key, value) in values { path = path.replacingOccurrences(of: "{\(key)}", with: value) }
            #expect(request.method == expected["method"] as? String, "\(name)")
            #expect(request.url.absoluteString == host + path, "\(name)")
            #expect(request.headers == Self.fill(expected["headers"] ?? [:], values) as? [String: String], "\(name)")
            if let body = expected["body"] as? [String: Any] {
                let actual = try #require(request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }, "\(name)")
                #expect(try Self.canonical(actual) == Self.canonical(Self.fill(body, values)), "\(name)")
            } else {
                #expect(request.body == nil || request.body?.isEmpty == true, "\(name)")
            }
        }
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("The catch-up sends the changes fixture's request and reads its answer; every other call keeps its headers")
    func catchUpMatchesTheChangesFixture() async throws {
        let fixture = try #require(try contractFixtures("client").first { $0.name == "changes.json" }?.json)
        let expected = try #require(fixture["request"] as? [String: Any])
        let recorder = RecordingTransport()
        let device = SimulatedDevice(transport: recorder)
        recorder.forward(to: device.service)
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let host = "https://push.example.com"
        let app = await device.launchAndSettle(
            PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", clientHost: host))
        app.sendToBackground()
        device.service.recordChange(
            .read(conversationId: "alice_user_bob", unreadCount: 0, at: device.clock.now()), authToken: "alice-token")
        app.bringToForeground()
        #expect(await device.settle())
        let changes = recorder.requests.filter { $0.url.path == "/notifications/push/v1/changes" }
        #expect(changes.count == 2, "at launch (no cursor) and at the return to the foreground")
        let first = try #require(changes.first)
        #expect(first.url.absoluteString == host + "/notifications/push/v1/changes?limit=200", "a fresh installation asks without since")
        let last = try #require(changes.last)
        // The cursor the first answer gave: the simulated service's cursor of now, before any change.
        let cursor = "c0"
        var path = try #require(expected["path"] as? String)
        path = path.replacingOccurrences(of: "{cursor}", with: cursor)
        #expect(last.method == expected["method"] as? String)
        #expect(last.url.absoluteString == host + path)
        // The fixture's headers, and Content-Type, which §2 puts on every call.
        var headers = try #require(
            Self.fill(expected["headers"] ?? [:], ["appId": "app1", "authToken": "alice-token"]) as? [String: String])
        headers["Content-Type"] = "application/json"
        #expect(last.headers == headers)
        #expect(last.body == nil || last.body?.isEmpty == true)
        #expect(device.service.contractViolations.isEmpty)

        // The fixture's answer, as the service sends it, parses to its three changes.
        let response = try #require(fixture["response"] as? [String: Any])
        let page = try #require(ChangesWire.page(try JSONSerialization.data(withJSONObject: response["body"] ?? [:])))
        #expect(page.changes.map(\.kind) == [.edited, .deleted, .read])
        #expect(page.changes[0].body == "See you at 6" && page.changes[0].notificationId == messageCollapseId)
        #expect(page.changes[1].messageId == "1043" && page.changes[2].unreadCount == 0)
        #expect(page.cursor == "{cursor}" && !page.hasMore && !page.truncated)
    }

    @Test("A self-hosted registration sends the languages fixture's body: the device's preferred languages, in order")
    func sdkLanguagesMatchTheFixture() async throws {
        let fixture = try #require(try contractFixtures("client").first { $0.name == "register-apns-token-languages.json" }?.json)
        let expected = try #require(fixture["request"] as? [String: Any])
        let recorder = RecordingTransport()
        let device = SimulatedDevice(transport: recorder)
        recorder.forward(to: device.service)
        device.preferredLanguages = ["de-CH", "de", "en"]
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let host = "https://push.example.com"
        await device.launchAndSettle(PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", clientHost: host))
        let values = [
            "appId": "app1", "authToken": "alice-token", "providerId": "apns-provider", "timezone": "Europe/Berlin",
            "token": SimulatedDevice.token(1).hex,
        ]
        let path = try #require(expected["path"] as? String)
        let sent = try #require(
            recorder.requests.first { $0.method == expected["method"] as? String && $0.url.absoluteString == host + path })
        #expect(sent.headers == Self.fill(expected["headers"] ?? [:], values) as? [String: String])
        var body = try #require(sent.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        #expect(body["encryption"] != nil, "a self-hosted registration also carries its private push key")
        body["encryption"] = nil  // which the fixture leaves out
        #expect(try Self.canonical(body) == Self.canonical(Self.fill(try #require(expected["body"]), values)))
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("The SDK sends exactly the activity fixtures' requests: the conversation shown, then none")
    func sdkActivityMatchesTheFixtures() async throws {
        let fixtures = Dictionary(uniqueKeysWithValues: try contractFixtures("client").map { ($0.name, $0.json) })
        let recorder = RecordingTransport()
        let device = SimulatedDevice(transport: recorder)
        recorder.forward(to: device.service)
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let host = "https://push.example.com"
        let app = await device.launchAndSettle(
            PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", clientHost: host))
        app.sdk.setActiveConversation(userId: "bob")
        #expect(await device.settle())
        app.sdk.clearActiveConversation()
        #expect(await device.settle())
        let sent = recorder.requests.filter { $0.url.path == "/notifications/push/v1/activity" }
        let values = ["appId": "app1", "authToken": "alice-token", "conversationId": "alice_user_bob"]
        #expect(sent.count == 2)
        for (name, request) in zip(["activity.json", "activity-clear.json"], sent) {
            let expected = try #require(fixtures[name]?["request"] as? [String: Any], "\(name)")
            #expect(request.method == expected["method"] as? String, "\(name)")
            #expect(request.url.absoluteString == host + (expected["path"] as? String ?? ""), "\(name)")
            #expect(request.headers == Self.fill(expected["headers"] ?? [:], values) as? [String: String], "\(name)")
            let body = try #require(request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }, "\(name)")
            #expect(try Self.canonical(body) == Self.canonical(Self.fill(try #require(expected["body"]), values)), "\(name)")
        }
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test(
        "An activity report's body is checked strictly: a conversation id of printable ASCII or null, seconds from 1 to 300, nothing else")
    func activityBodyIsStrict() throws {
        let headers = ["appid": "a", "authToken": "t", "Content-Type": "application/json", "Accept": "application/json"]
        func problems(_ body: Any) throws -> [String] {
            WireContract.violations(
                method: "PUT", path: "/notifications/push/v1/activity", headers: headers,
                body: try JSONSerialization.data(withJSONObject: body))
        }
        let good: [[String: Any]] = [
            ["conversationId": "alice_user_bob", "seconds": 120], ["conversationId": "group_team"], ["conversationId": NSNull()],
            ["conversationId": "group_team", "seconds": 1], ["conversationId": "group_team", "seconds": 300],
            ["conversationId": String(repeating: "a", count: 300)], ["conversationId": "a!~_-.@:"],
        ]
        for body in good { #expect(try problems(body) == [], "\(body)") }
        let bad: [(String, [String: Any])] = [
            ("no conversationId", ["seconds": 120]), ("an empty id", ["conversationId": ""]),
            ("a space", ["conversationId": "alice user_bob"]), ("a slash", ["conversationId": "group_a/b"]),
            ("not ASCII", ["conversationId": "group_équipe"]), ("a tab", ["conversationId": "group_\tteam"]),
            ("301 characters", ["conversationId": String(repeating: "a", count: 301)]), ("a number", ["conversationId": 42]),
            ("an object", ["conversationId": ["id": "x"]]), ("seconds 0", ["conversationId": "group_team", "seconds": 0]),
            ("seconds 301", ["conversationId": "group_team", "seconds": 301]),
            ("seconds 1.5", ["conversationId": "group_team", "seconds": 1.5]),
            ("seconds as text", ["conversationId": "group_team", "seconds": "60"]),
            ("seconds true", ["conversationId": "group_team", "seconds": true]),
            ("seconds null", ["conversationId": "group_team", "seconds": NSNull()]),
            ("another key", ["conversationId": "group_team", "uid": "alice"]),
        ]
        for (what, body) in bad { #expect(try problems(body) != [], "\(what)") }
        #expect(
            !WireContract.violations(method: "PUT", path: "/notifications/push/v1/activity", headers: headers, body: nil).isEmpty,
            "no body")
        #expect(WireContract.match(method: "POST", path: "/notifications/push/v1/activity") == nil)
    }

    /// `value` as JSON text with sorted keys, for comparing JSON values whatever their bridging.
    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A JSON object body whose values are all strings.
    static func json(_ body: Data?) -> [String: String]? {
        guard let body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        return object.compactMapValues { $0 as? String }
    }

    @Test("Token platforms are the fixed wire values of §2: the check, the fixtures and the SDK agree")
    func platformsAreTheWireValues() throws {
        let headers = ["appid": "a", "authToken": "t", "Content-Type": "application/json", "Accept": "application/json"]
        func problems(_ platform: String) throws -> [String] {
            let body = try JSONSerialization.data(withJSONObject: [
                "fcmToken": "t", "platform": platform, "providerId": "p", "timezone": "UTC",
            ])
            return WireContract.violations(method: "POST", path: "/notifications/push/v1/tokens", headers: headers, body: body)
        }
        for platform in ["apns_ios_device", "apns_ios_voip", "fcm_ios"] {
            #expect(try problems(platform) == [], "\(platform)")
        }
        // The SDK's own names, other casings and near misses are not on the wire
        for platform in ["apns", "fcm", "voip", "APNS_IOS_DEVICE", "apns_ios", "ios", "fcm_android", ""] {
            #expect(try !problems(platform).isEmpty, "\(platform)")
        }
        let fixtures = Dictionary(uniqueKeysWithValues: try contractFixtures("client").map { ($0.name, $0.json) })
        for (platform, fixture) in [
            (CometChatPushTokenPlatform.apns, "register-apns-token.json"), (.fcm, "register-fcm-token.json"),
            (.voip, "register-voip-token.json"),
        ] {
            let request = try #require(fixtures[fixture]?["request"] as? [String: Any])
            let wire = try #require((request["body"] as? [String: Any])?["platform"] as? String)
            #expect(try problems(wire) == [], "\(fixture)")
            #expect(platform.wireValue == wire, "the SDK's .\(platform.rawName) against \(fixture)")
        }
    }

    @Test("Error envelopes are classified as the fixtures say")
    func errorFixtures() throws {
        let fixtures = try contractFixtures("errors")
        #expect(fixtures.count >= 5)
        for (name, json) in fixtures {
            let status = try #require(json["status"] as? Int)
            let body = try JSONSerialization.data(withJSONObject: json["body"] ?? [:])
            let sdk = try #require(json["sdk"] as? [String: Any])
            guard case .failure(let error) = ClientAPI.classify(PNHTTPResponse(status: status, body: body)) else {
                Issue.record("\(name) classified as success")
                continue
            }
            #expect(error.code.name == sdk["errorCode"] as? String, "\(name)")
            #expect(error.isRetryable == sdk["retryable"] as? Bool, "\(name)")
            #expect(error.endsSession == sdk["endsSession"] as? Bool, "\(name)")
            let envelope = (json["body"] as? [String: Any])?["error"] as? [String: Any]
            #expect(error.serverCode == envelope?["code"] as? String)
        }
        guard case .failure(let garbage) = ClientAPI.classify(PNHTTPResponse(status: 418, body: Data("<html>".utf8))) else {
            Issue.record("418 classified as success")
            return
        }
        #expect(garbage.code == .serverError && garbage.serverCode == nil && !garbage.isRetryable)
    }
}

/// A transport that records the SDK's requests as sent (absolute URL and all) and hands them
/// on to another transport.
final class RecordingTransport: PNHTTPTransport, @unchecked Sendable {
    // @unchecked: mutable state is inside locks.
    private let sent = PNLocked<[PNHTTPRequest]>([])
    private let target = PNLocked<PNHTTPTransport?>(nil)

    /// Hands requests on to `transport`.
    func forward(to transport: PNHTTPTransport) { target.withLock { $0 = transport } }
    /// Every request, in order.
    var requests: [PNHTTPRequest] { sent.current }

    func send(_ request: PNHTTPRequest) async throws -> PNHTTPResponse {
        sent.withLock { $0.append(request) }
        guard let transport = target.current else { throw PNTransportError("no transport to forward to") }
        return try await transport.send(request)
    }
}

/// A transport that answers every request with one response.
private struct FixedTransport: PNHTTPTransport {
    let response: PNHTTPResponse
    func send(_ request: PNHTTPRequest) async throws -> PNHTTPResponse { response }
}

@Suite("Client API")
struct ClientAPITests {
    @Test("An auth token the service echoes in an error message never reaches the error")
    func authTokenRedacted() async throws {
        let fixture = try #require(try contractFixtures("errors").first { $0.name == "auth-token-not-found.json" }?.json)
        let secret = "user-auth-token-9f8e7d"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: fixture["body"] ?? [:]), as: UTF8.self)
            .replacingOccurrences(of: "{authToken}", with: secret)
        #expect(text.contains(secret))
        let api = ClientAPI(
            baseURL: URL(string: "https://example.invalid")!, appId: "app",
            transport: FixedTransport(response: PNHTTPResponse(status: 401, body: Data(text.utf8))))
        let result = await api.call("DELETE", "/notifications/push/v1/tokens", json: nil, authToken: secret)
        guard case .failure(let error) = result else {
            Issue.record("a 401 was classified as success")
            return
        }
        #expect(error.serverCode == "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")
        #expect(!error.message.contains(secret))
        #expect(!error.description.contains(secret))
        #expect(error.message.contains("<auth token>"))
    }
}
