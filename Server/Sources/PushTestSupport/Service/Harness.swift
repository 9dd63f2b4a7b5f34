import Foundation
import PushCore
import PushService
import PushStore
import ServerSupport

/// A running service for one test: its own temporary data directory, an ephemeral port
/// on 127.0.0.1, a known admin key, and helpers for the admin calls tests repeat.
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
    /// The port the service listens on (127.0.0.1).
    public var port: Int { app.port }
    /// The service's store.
    public var store: any ServiceStore { app.store }

    /// What the service delivers with. `.recording` has the delivery engine deliver into a
    /// ``RecordingSender``, `.none` leaves the engine stopped so jobs stay in the outbox (to
    /// inspect them), `.delivery` runs the real delivery engine (point it at a mock with `configure`).
    public enum SenderChoice: Sendable { case recording, none, delivery }

    /// Starts a service off Swift's cooperative pool (``offThePool(_:)``): opening its store
    /// (on PostgreSQL a schema, its migrations and the pool's connections) blocks, and many
    /// tests start one at once.
    ///
    /// `database`: the store of another harness, for tests of two services on one database
    /// (give both the same `dataDirectory` too, for SQLite). `logs`: records what the service
    /// logs at the configured `logLevel` and above (nothing is logged without it).
    public static func start(
        sender: SenderChoice = .none, database: TestDatabase? = nil,
        configure: @escaping @Sendable (inout ServiceConfiguration) -> Void = { _ in },
        logs: RecordingLogHandler? = nil, clock: @escaping @Sendable () -> Date = Date.init,
        outcome: (@Sendable (PushJob) -> JobOutcome)? = nil
    ) async throws -> Harness {
        try await offThePool {
            try Harness(
                sender: sender, database: database, configure: configure, logs: logs, clock: clock,
                outcome: outcome)
        }
    }

    private init(
        sender: SenderChoice, database: TestDatabase?, configure: (inout ServiceConfiguration) -> Void,
        logs: RecordingLogHandler?, clock: @escaping @Sendable () -> Date, outcome: (@Sendable (PushJob) -> JobOutcome)?
    ) throws {
        directory = NSTemporaryDirectory() + "push-tests-" + UUID().uuidString
        self.database = try database ?? TestDatabase(directory: directory)
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

    /// An admin call (the admin key, and `appid` when given).
    public func admin(
        _ method: String, _ path: String, appId: String? = nil, _ body: Any? = nil, headers: [String: String] = [:]
    ) async throws -> RawHTTP.Response {
        var all = headers
        all["apikey"] = Self.adminKey
        if let appId { all["appid"] = appId }
        return try await RawHTTP.json(port: port, method, path, headers: all, body)
    }

    /// A client call with the session's `appid` and `authToken`.
    public func client(_ method: String, _ path: String, session: TestSession, _ body: Any? = nil) async throws -> RawHTTP.Response {
        try await RawHTTP.json(port: port, method, path, headers: ["appid": session.appId, "authToken": session.authToken], body)
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
