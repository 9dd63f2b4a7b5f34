import APNs
import Delivery
import Foundation
import PushCore
import PushMocks
import PushStore
import PushTestSupport
import ServerSupport

/// Provider credentials served from memory (the service decrypts them from its store).
struct StaticDirectory: ProviderDirectory {
    let providers: [String: ProviderCredentials]
    func credentials(appId: String, providerId: String) throws -> ProviderCredentials? { providers[providerId] }
}

/// A real store (SQLite, or PostgreSQL when the suite runs on it), the Python mock APNs/FCM, and the delivery engine wired together.
final class DeliveryHarness: Sendable {
    let store: any ServiceStore
    /// SQLite, or a PostgreSQL schema of this harness's when the suite runs on PostgreSQL.
    let database: TestDatabase
    let mock: MockPushServer
    let engine: DeliveryEngine
    let sender: DeliverySender
    /// What the sender and the engine logged, every level.
    let logs = RecordingLogHandler()
    static let app = "app1"
    static let user = "u1"

    /// Starts the mock, the store and the engine off Swift's cooperative pool
    /// (``offThePool(_:)``): the mock's start and the store's opening block, and many tests
    /// start a harness at once.
    static func start(
        latencyMilliseconds: Int = 0, retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 5),
        apnsURL: (@Sendable (MockPushServer) throws -> String)? = nil, requestTimeoutMilliseconds: Int = 3_000,
        transport: APNsTransport? = nil
    ) async throws -> DeliveryHarness {
        try await offThePool {
            try DeliveryHarness(
                latencyMilliseconds: latencyMilliseconds, retry: retry, apnsURL: apnsURL,
                requestTimeoutMilliseconds: requestTimeoutMilliseconds, transport: transport)
        }
    }

    private init(
        latencyMilliseconds: Int, retry: RetryPolicy, apnsURL: ((MockPushServer) throws -> String)?, requestTimeoutMilliseconds: Int,
        transport: APNsTransport?
    ) throws {
        mock = try MockPushServer(latencyMilliseconds: latencyMilliseconds)
        let dir = NSTemporaryDirectory() + "delivery-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        database = try TestDatabase(directory: dir)
        store = try database.open()
        try store.createApp(AppRecord(id: Self.app, name: "App", createdAt: Date()))
        try store.createUser(UserRecord(appId: Self.app, uid: Self.user, name: "User", createdAt: Date()))
        let credentials = mock.credentials
        let directory = StaticDirectory(providers: [
            "apns-1": .apns(
                APNsCredentials(
                    keyId: MockPushServer.keyId, teamId: MockPushServer.teamId, bundleId: "com.example.app",
                    privateKeyPEM: credentials.apnsPrivateKeyPEM, production: false)),
            "fcm-1": .fcm(
                FCMCredentials(
                    projectId: "demo-project", clientEmail: "svc@demo-project.iam.gserviceaccount.com",
                    privateKeyPEM: credentials.fcmPrivateKeyPEM, privateKeyId: "kid-1", tokenURI: mock.baseURL + "/token")),
        ])
        let store = self.store
        var configuration = DeliveryConfiguration(
            apnsBaseURL: try apnsURL?(mock) ?? mock.baseURL, fcmBaseURL: mock.baseURL, caFile: credentials.caFile, retry: retry,
            requestTimeoutMilliseconds: requestTimeoutMilliseconds)
        // The FCM token_uri is the mock's, on 127.0.0.1: allowed as `--allow-private-destinations 127.0.0.0/8` would.
        configuration.privateDestinations = [try CIDRBlock(parsing: "127.0.0.0/8")]
        // nil: the service's default transport
        if let transport { configuration.apnsTransport = transport }
        sender = DeliverySender(
            directory: directory,
            configuration: configuration,
            lastRegistration: { app, token in
                try? store.tokenRegisteredAt(appId: app, token: token)
            },
            tokenDelivered: { app, token in (try? store.tokenHasDelivered(appId: app, token: token)) ?? false },
            lastDelivery: { app, provider in try? store.providerLastDelivered(appId: app, providerId: provider) },
            events: DeliverySender.Events(
                learnedEnvironment: { app, token, environment in
                    try? store.recordTokenEnvironment(appId: app, token: token, environment: environment)
                },
                providerRecovered: { app, provider in
                    _ = try? store.releaseWaitingJobs(appId: app, providerId: provider, now: Date())
                }),
            logger: logs.logger())
        engine = DeliveryEngine(
            store: store, sender: sender,
            // A long lease: on a loaded machine a first send (the OAuth exchange, the TLS
            // handshake) took over 30 s, its lease ran out and the job was sent twice.
            configuration: DeliveryEngine.Configuration(batchSize: 100, maxInFlight: 400, lease: 120, idleWait: 0.02),
            logger: logs.logger())
    }

    deinit {
        engine.stop(timeout: 5)
        sender.shutdown()
    }

    /// Registers a token for the test user.
    @discardableResult
    func register(_ token: String, platform: TokenPlatform = .apnsDevice, at date: Date = Date()) throws -> PushTokenRecord {
        try store.registerToken(
            PushTokenRecord(
                appId: Self.app, uid: Self.user, token: token, platform: platform,
                providerId: platform == .fcm ? "fcm-1" : "apns-1", timezone: nil, authTokenHash: Data([1, 2, 3]),
                authTokenHint: "hint", createdAt: date, updatedAt: date),
            maxPerUser: 100)
    }

    /// Puts a job for `token` in the outbox.
    @discardableResult
    func enqueue(
        _ token: String, platform: TokenPlatform = .apnsDevice, kind: PushKind = .chat,
        payload: String = #"{"aps":{"alert":{"title":"Hi","body":"there"}},"type":"chat","sender":"u2","unreadMessageCount":3}"#,
        expiration: Int64 = 0, id: String = UUID().uuidString, environment: TokenEnvironment? = nil
    ) throws -> PushJob {
        let job = PushJob.test(
            id, appId: Self.app, requestId: "req-1", uid: Self.user, token: token, kind: kind, platform: platform,
            providerId: platform == .fcm ? "fcm-1" : "apns-1", payload: Data(payload.utf8), expiration: expiration, environment: environment
        )
        try store.enqueue(webhooks: [], pushJobs: [job])
        engine.wake()
        return job
    }

    /// Waits until the outbox has no pending or leased job, as long as the jobs progress: it
    /// gives up only when the counts have not changed for `stall` seconds of real time (and then
    /// prints them), never on a total deadline that a loaded machine could miss while it is still
    /// delivering. A first send (TLS handshake, OAuth exchange) once took over 15 s on CI.
    func drain(stall: TimeInterval = 60) async throws -> OutboxCounts {
        let store = self.store
        return try await waitWhileProgressing("drain", stall: stall, { try store.pushJobCounts() }) {
            $0.pending + $0.inFlight == 0
        }.value
    }

    /// The tokens still registered for the test user.
    func tokens() throws -> [String] { try store.tokens(appId: Self.app, uid: Self.user).map(\.token) }
}
