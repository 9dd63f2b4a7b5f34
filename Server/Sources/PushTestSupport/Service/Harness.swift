import Foundation
import HTTPServer
import PushCore
import PushService
import PushStore
import ServerSupport

/// A running service for one test: its own temporary data directory, an ephemeral port
/// on 127.0.0.1, a known admin key, and helpers for the admin calls tests repeat.
///
/// Requests go to the API in process by default (``handle(_:_:headers:body:)``: straight to the
/// service's handler, no socket); a harness started with `transport: .socket` sends them over
/// HTTP to ``port``, as tests of the HTTP layer itself do.
public final class Harness: @unchecked Sendable {
    // @unchecked: immutable after init; the service itself is thread-safe.
    /// The admin key every harness's service has.
    public static let adminKey = "test-admin-key-0123456789"

    /// The service.
    public let app: PushServiceApp
    /// Its data directory, removed with the harness.
    public let directory: String
    /// The sender jobs go to with `sender: .recording`.
    public let recorder: RecordingSender?
    /// SQLite in `directory`, or a PostgreSQL schema of this test's when the suite runs on PostgreSQL.
    public let database: TestDatabase
    /// How ``admin(_:_:appId:_:headers:)``, ``client(_:_:session:_:)``, ``request(_:_:headers:body:)``
    /// and ``json(_:_:headers:_:)`` reach the service.
    public let transport: Transport

    /// The port the service listens on (127.0.0.1).
    public var port: Int { app.port }
    /// The service's store.
    public var store: any ServiceStore { app.store }

    /// What the service delivers with. `.recording` has the delivery engine deliver into a
    /// ``RecordingSender``, `.none` leaves the engine stopped so jobs stay in the outbox (to
    /// inspect them), `.delivery` runs the real delivery engine (point it at a mock with `configure`).
    public enum SenderChoice: Sendable { case recording, none, delivery }

    /// How requests reach the service.
    public enum Transport: Sendable {
        /// Straight to the API's handler (``handle(_:_:headers:body:)``).
        case inProcess
        /// Over a TCP connection to ``port`` (``RawHTTP``).
        case socket
    }

    /// Starts a service off Swift's cooperative pool (``offThePool(_:)``): opening its store
    /// (on PostgreSQL a schema, its migrations and the pool's connections) blocks, and many
    /// tests start one at once.
    ///
    /// `database`: the store of another harness, for tests of two services on one database
    /// (give both the same `dataDirectory` too, for SQLite). `logs`: records what the service
    /// logs at the configured `logLevel` and above (nothing is logged without it).
    public static func start(
        sender: SenderChoice = .none, database: TestDatabase? = nil, transport: Transport = .inProcess,
        configure: @escaping @Sendable (inout ServiceConfiguration) -> Void = { _ in },
        logs: RecordingLogHandler? = nil, clock: @escaping @Sendable () -> Date = Date.init,
        outcome: (@Sendable (PushJob) -> JobOutcome)? = nil
    ) async throws -> Harness {
        try await offThePool {
            try Harness(
                sender: sender, database: database, transport: transport, configure: configure, logs: logs, clock: clock,
                outcome: outcome)
        }
    }

    private init(
        sender: SenderChoice, database: TestDatabase?, transport: Transport, configure: (inout ServiceConfiguration) -> Void,
        logs: RecordingLogHandler?, clock: @escaping @Sendable () -> Date, outcome: (@Sendable (PushJob) -> JobOutcome)?
    ) throws {
        directory = NSTemporaryDirectory() + "push-tests-" + UUID().uuidString
        self.database = try database ?? TestDatabase(directory: directory)
        self.transport = transport
        var configuration = ServiceConfiguration()
        configuration.databasePath = self.database.url
        configuration.databasePoolSize = 2  // many tests run at once on one PostgreSQL
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.adminKey = Self.adminKey
        configuration.secretKey = Data(repeating: 7, count: 32).base64EncodedString()
        configuration.sender = sender == .delivery ? .delivery : .none
        configuration.pollInterval = 0.02
        configuration.webhookRetryBase = 0.05
        configuration.webhookRetryMax = 0.2
        // Tests' webhook receivers listen on http://127.0.0.1 and the mock FCM's token_uri is
        // https://127.0.0.1: allowed as the flags `--allow-insecure-webhooks` and
        // `--allow-private-destinations 127.0.0.0/8` allow them (OutboundRequestTests turns them off).
        configuration.allowInsecureWebhooks = true
        configuration.allowPrivateDestinations = [try CIDRBlock(parsing: "127.0.0.0/8")]
        configure(&configuration)
        let recorder = sender == .recording ? (outcome.map { RecordingSender(outcome: $0) } ?? RecordingSender()) : nil
        self.recorder = recorder
        let logger = logs?.logger(level: configuration.logLevel) ?? .silent
        app = try PushServiceApp(
            configuration: configuration, logger: logger, sender: recorder, startDelivery: sender != .none, clock: clock)
    }

    deinit {
        app.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: HTTP

    /// A request that ``handle(_:_:headers:body:)`` cannot make without a socket.
    public struct NeedsSocket: Error, CustomStringConvertible {
        /// Why.
        public let description: String
    }

    /// Calls the API in process: the request goes straight to the service's handler
    /// (``PushServiceApp/respond(to:)``) as the HTTP server would hand it over for the same
    /// request on the wire — path and query percent-decoded, header names in lower case, the
    /// headers a client sends with it (`Host`, `Content-Length`), the client 127.0.0.1 — with
    /// no connection, socket or server thread. The handler runs on a thread of its own
    /// (``offThePool(_:)``), as it would on one of the server's.
    ///
    /// The HTTP layer's own answers need a socket (``RawHTTP`` to ``port``): a body over
    /// `--max-body-bytes` throws ``NeedsSocket`` here rather than reach a handler the server
    /// would never call with it.
    public func handle(
        _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> RawHTTP.Response {
        let limit = app.configuration.maxBodyBytes
        if let body, body.count > limit {
            throw NeedsSocket(description: "a \(body.count)-byte body is over --max-body-bytes (\(limit)): the HTTP layer answers it")
        }
        var fields = [String: String]()
        for (name, value) in headers { fields[name.lowercased()] = value }
        fields["host"] = "127.0.0.1:\(port)"
        if let body { fields["content-length"] = String(body.count) }
        let target = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let request = HTTPRequest(
            method: method, path: Self.unescape(target[0]), query: target.count > 1 ? Self.arguments(target[1]) : [:],
            headers: fields, body: body ?? Data(), clientAddress: "127.0.0.1")
        let app = self.app
        let response = try await offThePool { app.respond(to: request) }
        var answered = [String: String]()
        for (name, value) in response.headers { answered[name.lowercased()] = value }
        return RawHTTP.Response(status: response.status, headers: answered, body: method == "HEAD" ? Data() : response.body)
    }

    /// A request over ``transport``: raw `body` bytes.
    public func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> RawHTTP.Response {
        switch transport {
        case .inProcess: return try await handle(method, path, headers: headers, body: body)
        case .socket: return try await RawHTTP.request(port: port, method, path, headers: headers, body: body)
        }
    }

    /// A request over ``transport`` with `body` (if any) as JSON, as ``RawHTTP/json(port:_:_:headers:_:)``
    /// sends it.
    public func json(_ method: String, _ path: String, headers: [String: String] = [:], _ body: Any? = nil) async throws -> RawHTTP.Response
    {
        let (headers, data) = try RawHTTP.jsonRequest(headers: headers, body)
        return try await request(method, path, headers: headers, body: data)
    }

    /// An admin call (the admin key, and `appid` when given) over ``transport``.
    public func admin(
        _ method: String, _ path: String, appId: String? = nil, _ body: Any? = nil, headers: [String: String] = [:]
    ) async throws -> RawHTTP.Response {
        var all = headers
        all["apikey"] = Self.adminKey
        if let appId { all["appid"] = appId }
        return try await json(method, path, headers: all, body)
    }

    /// A client call with the session's `appid` and `authToken` over ``transport``.
    public func client(_ method: String, _ path: String, session: TestSession, _ body: Any? = nil) async throws -> RawHTTP.Response {
        try await json(method, path, headers: ["appid": session.appId, "authToken": session.authToken], body)
    }

    /// `%XX` decoded as libmicrohttpd decodes a path (other bytes, and a `%` without two hex
    /// digits, kept), up to a decoded NUL (the handler gets a C string).
    static func unescape(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        if let end = bytes.firstIndex(of: 0) { bytes.removeSubrange(end...) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The query's arguments as libmicrohttpd reads them: `&`-separated, `+` a space, then
    /// `%XX` decoded; an argument without `=` has the empty value; the last of a name wins.
    static func arguments(_ query: Substring) -> [String: String] {
        var arguments = [String: String]()
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func text(_ part: Substring) -> String { unescape(Substring(part.replacingOccurrences(of: "+", with: " "))) }
            arguments[text(parts[0])] = parts.count > 1 ? text(parts[1]) : ""
        }
        return arguments
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    // MARK: Setup

    /// A user's session: what a client sends.
    public struct TestSession: Sendable {
        /// The app.
        public let appId: String
        /// The user.
        public let uid: String
        /// The user's auth token.
        public let authToken: String

        /// A session of `uid` in `appId` with `authToken`.
        public init(appId: String, uid: String, authToken: String) {
            self.appId = appId
            self.uid = uid
            self.authToken = authToken
        }
    }

    /// Creates an app with an APNs provider `apns-1` and an FCM provider `fcm-1`.
    @discardableResult
    public func makeApp(_ appId: String = "app1", webhookURL: String? = nil) async throws -> RawHTTP.Response {
        var body: [String: Any] = ["appId": appId, "name": "Test app"]
        if let webhookURL { body["webhookUrl"] = webhookURL }
        let app = try await admin("POST", "/apps", body)
        _ = try await admin("POST", "/notifications/push/v1/providers/apns", appId: appId, Self.apnsProvider("apns-1"))
        _ = try await admin("POST", "/notifications/push/v1/providers/fcm", appId: appId, Self.fcmProvider("fcm-1"))
        return app
    }

    /// Creates a user and an auth token.
    public func makeUser(_ uid: String, appId: String = "app1", name: String? = nil) async throws -> TestSession {
        let response = try await admin(
            "POST", "/users", appId: appId, ["uid": uid, "name": name ?? uid.capitalized, "withAuthToken": true])
        guard let token = response.data["authToken"] as? String else { throw RawHTTP.Failure.noResponse }
        return TestSession(appId: appId, uid: uid, authToken: token)
    }

    /// Registers a token for the session.
    @discardableResult
    public func register(
        _ token: String, platform: String, session: TestSession, providerId: String? = nil
    ) async throws -> RawHTTP.Response {
        let provider = providerId ?? (platform == "fcm_ios" ? "fcm-1" : "apns-1")
        return try await client(
            "POST", "/notifications/push/v1/tokens", session: session,
            ["fcmToken": token, "platform": platform, "providerId": provider, "timezone": "Europe/Paris"])
    }

    /// A placeholder private key in PEM form (truncated: it signs nothing), for providers that
    /// deliver nowhere.
    public static let testPEM =
        "-----BEGIN PRIVATE KEY-----\nTUlHVEFnRUFNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQkcwd2F3SUJBUVFn\n-----END PRIVATE KEY-----\n"

    /// An APNs provider's body for the admin API.
    public static func apnsProvider(_ id: String) -> [String: Any] {
        [
            "providerId": id, "keyId": "ABC123DEFG", "teamId": "TEAM123456", "bundleId": "com.example.chat", "p8Key": testPEM,
            "production": false,
        ]
    }

    /// An FCM provider's body for the admin API.
    public static func fcmProvider(_ id: String) -> [String: Any] {
        [
            "providerId": id,
            "serviceAccountCreds": [
                "project_id": "demo-project", "client_email": "push@demo-project.iam.gserviceaccount.com", "private_key": testPEM,
                "private_key_id": "key-1",
            ],
            "notificationInPayload": ["ios": ["chat": true, "call": false]],
        ]
    }
}
