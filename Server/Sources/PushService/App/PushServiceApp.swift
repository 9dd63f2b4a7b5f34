import PushCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Delivery
import HTTPServer
import PushCore
import PushStore
import ServerSupport

/// The running service: store, HTTP API, the delivery engine, the webhook worker, the
/// retention purge and the expansion of group sends.
public final class PushServiceApp: Sendable {
    /// The configuration it runs with.
    public let configuration: ServiceConfiguration
    /// The store: SQLite, or PostgreSQL when `--database` is a `postgres://` URL.
    public let store: any ServiceStore
    /// Provider credentials for the delivery engine.
    public let providers: ProviderSecrets
    /// Where the admin key comes from (a file path or the environment); never the key.
    public let adminKeySource: String
    /// The development seed, when `--seed-dev` was given.
    public let seed: DevSeed?
    /// The API's routes as `METHOD /path/{parameter}` (what `Server/openapi.json` documents).
    public let routes: [String]
    /// The delivery engine with the configured sender (`--sender`).
    public let delivery: DeliveryService
    let context: ServiceContext
    private let handler: APIHandler
    private let server: HTTPServer
    private let webhooks: WebhookDispatcher
    private let retention: RetentionWorker
    private let groupSends: GroupSendWorker

    /// Opens the store, starts the HTTP server, the delivery engine and the webhook worker.
    ///
    /// - Parameters:
    ///   - logger: the service's logger, handed down to every part that logs (`--log-level`
    ///     sets its level in `push-server`).
    ///   - sender: replaces the configured sender (tests hand in a double); the engine drives
    ///     it like any other.
    ///   - startDelivery: false leaves the engine stopped until ``startDelivery()`` (tests
    ///     that inspect jobs in the outbox).
    ///   - clock: the API's clock (tests set the time of day for quiet hours and mute expiry;
    ///     the webhook dispatcher claims and signs with it too).
    ///   - workerClock: the clock of the background workers (the delivery engine, the webhook
    ///     dispatcher's waits, the retention purge) and of the rate limiter.
    public init(
        configuration: ServiceConfiguration, logger: Logger, sender: (any PushSender)? = nil,
        startDelivery: Bool = true, clock: @escaping @Sendable () -> Date = Date.init, workerClock: any ServiceClock = SystemClock()
    ) throws {
        self.configuration = configuration
        // The data directory 0700 and the service's files in it 0600, before any is opened.
        var sqlitePath: String?
        if case .sqlite(let path) = configuration.storeLocation { sqlitePath = path }
        try PrivateFiles.secureDataDirectory(configuration.dataDirectory, database: sqlitePath, logger: logger)
        let secrets = try Self.secretBox(configuration, logger: logger)
        let adminKey: String
        if let key = configuration.adminKey {
            adminKey = key
            adminKeySource = "the PUSH_ADMIN_KEY environment variable"
        } else {
            let path = configuration.resolvedAdminKeyFile
            adminKey = try KeyFiles.loadOrCreateText(at: path) { Crypto.randomToken(prefix: "adm_") }.value
            adminKeySource = path
        }
        let store = try configuration.storeLocation.open(
            poolSize: configuration.databasePoolSize, sqliteSynchronousFull: configuration.sqliteSynchronousFull, logger: logger)
        self.store = store
        providers = ProviderSecrets(store: store, secrets: secrets)
        context = ServiceContext(
            configuration: configuration, store: store, secrets: secrets, adminKey: adminKey, logger: logger, clock: clock,
            workerClock: workerClock)
        seed = configuration.seedDev ? try DevSeed.apply(context: context) : nil
        let handler = APIHandler(service: context)
        self.handler = handler
        routes = handler.routeList
        // Every connection is an open file: take the hard limit (the soft one is often 1,024).
        if let (before, after) = OpenFiles.raiseToHardLimit(), after > before {
            logger.info("open-file limit raised from \(before) to \(after)")
        }
        server = try HTTPServer(
            configuration: configuration.httpServer, tooLarge: APIError.tooLarge.response, handler: { handler.handle($0) })
        let server = self.server
        context.httpServer.withLock { $0 = server }
        if server.effectiveConnectionLimit < configuration.maxConnections {
            logger.warning(
                "--max-connections \(configuration.maxConnections) is more than the open-file limit allows: serving at most "
                    + "\(server.effectiveConnectionLimit) connections (raise the hard limit, e.g. LimitNOFILE= in the systemd unit)")
        }
        // Private pushes are sealed at send time with the tokens' keys, when the store keeps them.
        let privateKeys = Self.privateKeys(keyStore: store, secrets: secrets)
        switch (sender, configuration.sender) {
        case (let sender?, _):
            delivery = DeliveryService(
                store: store, sender: sender, engine: configuration.engine, logger: logger, clock: workerClock, privateKeys: privateKeys)
        case (nil, .delivery):
            delivery = DeliveryService(
                store: store, directory: providers,
                configuration: configuration.delivery.sharingProviderTokens(through: store, secrets: secrets, logger: logger),
                engine: configuration.engine,
                lastRegistration: { appId, token in
                    try? store.tokenRegisteredAt(appId: appId, token: token)
                }, logger: logger, clock: workerClock, privateKeys: privateKeys)
        case (nil, .log):
            let sender = LogSender(journalPath: configuration.senderJournal, logger: logger)
            delivery = DeliveryService(
                store: store, sender: sender, engine: configuration.engine, logger: logger, clock: workerClock, privateKeys: privateKeys)
        case (nil, .none):
            delivery = DeliveryService(
                store: store, sender: NoneSender(), engine: configuration.engine, logger: logger, clock: workerClock,
                privateKeys: privateKeys)
        }
        let engine = delivery
        context.deliveryStatus.withLock { $0 = engine }
        context.delivery.withLock { $0 = engine }
        webhooks = WebhookDispatcher(service: context)
        retention = RetentionWorker(service: context)
        let groupSends = GroupSendWorker(service: context)
        self.groupSends = groupSends
        context.groupSendsWake.withLock { $0 = { [weak groupSends] in groupSends?.wake() } }
        // Added jobs wake the workers at once (SQLite: after the commit; PostgreSQL: any
        // instance's, through NOTIFY); polling stays as the fallback. Weak: the store outlives
        // neither, and must not keep them.
        store.onJobsAdded { [weak engine, weak dispatcher = webhooks] in
            engine?.wake()
            dispatcher?.wake()
        }
        if startDelivery { engine.start() }
        webhooks.start()
        retention.start()
        groupSends.start()
        if let seed { try seed.write(port: server.port, host: configuration.host, dataDirectory: configuration.dataDirectory) }
    }

    /// The port the API listens on.
    public var port: Int { server.port }

    /// `http://host:port`.
    public var baseURL: String { "http://\(configuration.host):\(port)" }

    /// Answers `request` as the HTTP server's threads do, without a socket: what the handler
    /// returns for a request the HTTP layer has parsed (tests call the API in process with it).
    /// The HTTP layer's own answers — a body over `--max-body-bytes`, headers over its limit, a
    /// connection refused or timed out — come only over a socket.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        handler.handle(request)
    }

    /// Lets the admin API show what the delivery engine knows about providers
    /// (`GET /admin/providers/health`).
    public func attach(deliveryStatus: any DeliveryStatus) {
        context.deliveryStatus.withLock { $0 = deliveryStatus }
    }

    /// Starts the delivery engine when the service was created with `startDelivery: false`.
    public func startDelivery() { delivery.start() }

    /// Stops the HTTP server and the workers; waits briefly for sends in flight to be
    /// recorded. Jobs still in flight stay leased and are claimed again by the next run.
    public func stop() {
        server.stop()
        groupSends.stop()
        delivery.stop()
        webhooks.stop()
        retention.stop()
        (store as? PostgresStore)?.close()
    }

    /// How the sender finds and opens the tokens' encryption keys: through the store
    /// (``EncryptionKeyStore``), the auth secret unsealed with the service's key.
    static func privateKeys(keyStore: any EncryptionKeyStore, secrets: SecretBox) -> PrivatePushSender.Keys {
        let keys = TokenEncryptionKeys(secrets: secrets)
        return PrivatePushSender.Keys(store: keyStore) { appId, token, stored in try keys.open(stored, appId: appId, token: token) }
    }

    private static func secretBox(_ configuration: ServiceConfiguration, logger: Logger) throws -> SecretBox {
        if let text = configuration.secretKey {
            guard let key = KeyFiles.parseKey(text) else {
                throw ConfigurationError.invalid("PUSH_SECRET_KEY must be 32 bytes as base64 or 64 hex digits")
            }
            return try SecretBox(key: key)
        }
        let path = configuration.resolvedSecretKeyFile
        let (text, created) = try KeyFiles.loadOrCreateText(at: path) { Crypto.randomBytes(32).base64EncodedString() }
        guard let key = KeyFiles.parseKey(text) else { throw ConfigurationError.invalid("\(path) does not hold a 32-byte key") }
        if created {
            logger.warning("created a new secret key in \(path); set PUSH_SECRET_KEY (or keep that file safe) in production")
        }
        return try SecretBox(key: key)
    }
}
