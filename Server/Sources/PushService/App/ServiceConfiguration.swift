import CurlHTTP
import Delivery
import HTTPServer
import PushCore
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything the service can be told at start. Each option has a flag (`--port`) and an
/// environment variable (`PUSH_PORT`); flags win. See ``ServiceConfiguration/helpText``.
public struct ServiceConfiguration: Sendable {
    /// Address to bind (`--host`, `PUSH_HOST`).
    public var host = "127.0.0.1"
    /// Port (`--port`, `PUSH_PORT`); 0 picks a free port.
    public var port = 8080
    /// Directory for the database and generated key files (`--data-dir`, `PUSH_DATA_DIR`).
    public var dataDirectory = "./data"
    /// The store (`--database`, `PUSH_DATABASE` or `PUSH_DATABASE_URL`): a SQLite file (default
    /// `<data-dir>/push.sqlite`; `sqlite:` in front is allowed) or a PostgreSQL URL
    /// (`postgres://` or `postgresql://`), which several instances can share.
    public var databasePath: String?
    /// PostgreSQL connections each instance keeps (`--database-pool`, `PUSH_DATABASE_POOL`).
    public var databasePoolSize = 8
    /// `FULL` (default) or `NORMAL` SQLite synchronous mode (`--sqlite-sync`, `PUSH_SQLITE_SYNC`).
    public var sqliteSynchronousFull = true
    /// The admin API key (`PUSH_ADMIN_KEY` only: keys do not belong in process listings).
    public var adminKey: String?
    /// File holding the admin key, created if missing (`--admin-key-file`, `PUSH_ADMIN_KEY_FILE`).
    public var adminKeyFile: String?
    /// 32-byte key sealing provider secrets, base64 or hex (`PUSH_SECRET_KEY` only).
    public var secretKey: String?
    /// File holding that key, created if missing (`--secret-key-file`, `PUSH_SECRET_KEY_FILE`).
    public var secretKeyFile: String?
    /// What the delivery engine sends with (`--sender`, `PUSH_SENDER`): `delivery` (APNs and
    /// FCM, the default), `log` (writes a line per push, sends nothing, reports it delivered)
    /// or `none` (sends nothing and records each push failed, "not sent"). The engine drives
    /// all three the same way.
    public var sender = SenderKind.delivery
    /// When set, the log sender appends each job id to this file (`--sender-journal`, `PUSH_SENDER_JOURNAL`).
    public var senderJournal: String?
    /// Where and how the engine reaches APNs and FCM (`--apns-url`, `--fcm-url`, `--ca-file`,
    /// `--apns-connections`, `--apns-transport`).
    public var delivery = DeliveryConfiguration()
    /// Most concurrent sends (`--delivery-max-in-flight`, `PUSH_DELIVERY_MAX_IN_FLIGHT`).
    public var deliveryMaxInFlight = 1400
    /// Most tokens a send may have for its jobs to be made before the store's transaction (a few
    /// megabytes of jobs at most); a larger send's jobs are made inside it, recipient by
    /// recipient, so that they are never all in memory. Not an option: tests lower it to reach
    /// the streamed path with a few tokens.
    public var sendJobsMadeBeforeTheStore = 2_048
    /// Largest request body in bytes (`--max-body-bytes`, `PUSH_MAX_BODY_BYTES`).
    public var maxBodyBytes = 64 * 1024
    /// Requests per minute per auth token; 0 disables (`--rate-limit`, `PUSH_RATE_LIMIT`).
    public var rateLimitPerMinute = 600
    /// Burst size per auth token (`--rate-burst`, `PUSH_RATE_BURST`).
    public var rateLimitBurst = 60
    /// Most tokens per user; the oldest goes (`--max-tokens-per-user`, `PUSH_MAX_TOKENS_PER_USER`).
    public var maxTokensPerUser = 100
    /// Server threads (`--threads`, `PUSH_THREADS`).
    public var threads = 4
    /// Most concurrent connections in all (`--max-connections`, `PUSH_MAX_CONNECTIONS`); capped
    /// by the open-file limit, which the service raises to its hard limit at start.
    public var maxConnections = 16_384
    /// Most concurrent connections from one address (`--max-connections-per-address`,
    /// `PUSH_MAX_CONNECTIONS_PER_ADDRESS`; 0: no limit); trusted proxies are exempt.
    public var maxConnectionsPerAddress = 256
    /// Seconds a connection has for its whole request, headers and body
    /// (`--request-timeout`, `PUSH_REQUEST_TIMEOUT`); traffic does not extend it.
    public var requestTimeoutSeconds = 10.0
    /// Reverse proxies in front of the service (`--trusted-proxy`, `PUSH_TRUSTED_PROXY`: CIDR
    /// blocks or addresses, comma-separated): exempt from the per-address connection limit, and
    /// their `X-Forwarded-For` names the client in logs.
    public var trustedProxies: [CIDRBlock] = []
    /// First webhook retry delay in seconds, doubled per attempt (`--webhook-retry-base`, `PUSH_WEBHOOK_RETRY_BASE`).
    public var webhookRetryBase = 1.0
    /// Longest webhook retry delay in seconds (`--webhook-retry-max`, `PUSH_WEBHOOK_RETRY_MAX`).
    public var webhookRetryMax = 300.0
    /// Seconds a webhook POST may take (`--webhook-timeout`, `PUSH_WEBHOOK_TIMEOUT`).
    public var webhookTimeout = 10.0
    /// Webhook posts in flight per app (`--webhook-concurrency`, `PUSH_WEBHOOK_CONCURRENCY`):
    /// an app whose receiver is slow or hangs holds at most this many of the dispatcher's
    /// 64 slots, so the events of other apps go on at once.
    public var webhookConcurrency = 4
    /// Seconds between outbox polls of the delivery engine and the webhook dispatcher when idle
    /// (`--poll-interval`, `PUSH_POLL_INTERVAL`): the fallback, as added jobs wake both at once
    /// (``PushStore/ServiceStore/onJobsAdded(_:)``) and the engine wakes when a retry it
    /// recorded falls due.
    public var pollInterval = 0.2
    /// Seconds a claimed push job stays leased by the delivery engine; jobs of a process that
    /// died are claimed again after it, or at once by the next process started on the same
    /// database (`--job-lease`, `PUSH_JOB_LEASE`).
    public var jobLeaseSeconds = 60.0
    /// Members of a group send expanded per store transaction (`--group-batch`,
    /// `PUSH_GROUP_BATCH`): a send to a group larger than the inline limit (1,000) is answered at
    /// once and its jobs are made in the background, this many members at a time, each batch one
    /// transaction with its cursor (issue 31, docs/design/group-sends.md).
    public var groupBatchSize = 1_000
    /// Days finished work is kept (`--retention-days`, `PUSH_RETENTION_DAYS`): finished push
    /// and webhook jobs, trace events, idempotency records and call records older than this
    /// are deleted in the background; 0 keeps everything (never purges).
    public var retentionDays = 7
    /// Seconds between retention purges (`--retention-interval`, `PUSH_RETENTION_INTERVAL`);
    /// the first runs this long after start, at most a minute.
    public var retentionIntervalSeconds = 3600.0
    /// Create a development app, user, auth token and APNs provider (`--seed-dev`, `PUSH_SEED_DEV=1`).
    public var seedDev = false
    /// App id of the seed (`--seed-app-id`, `PUSH_SEED_APP_ID`).
    public var seedAppId = "dev-app"
    /// User id of the seed (`--seed-uid`, `PUSH_SEED_UID`).
    public var seedUid = "dev-user"
    /// Auth token of the seed (`PUSH_SEED_AUTH_TOKEN`); generated when absent.
    public var seedAuthToken: String?
    /// Provider id of the seed (`--seed-provider-id`, `PUSH_SEED_PROVIDER_ID`).
    public var seedProviderId = "dev-apns"
    /// FCM provider id of the seed (`--seed-fcm-provider-id`, `PUSH_SEED_FCM_PROVIDER_ID`).
    public var seedFCMProviderId = "dev-fcm"
    /// Webhook URL of the seed app (`--seed-webhook-url`, `PUSH_SEED_WEBHOOK_URL`).
    public var seedWebhookURL: String?
    /// Log level: debug, info, warning, error (`--log-level`, `PUSH_LOG_LEVEL`).
    public var logLevel = LogLevel.info
    /// Webhook URLs may be `http://`, to loopback addresses only, and loopback addresses are
    /// allowed over `https` too (`--allow-insecure-webhooks`, `PUSH_ALLOW_INSECURE_WEBHOOKS`):
    /// for development, never on a server others use.
    public var allowInsecureWebhooks = false

    /// Blocks that webhooks and the FCM token exchange (`token_uri`) may reach although they
    /// are not public addresses (`--allow-private-destinations`, `PUSH_ALLOW_PRIVATE_DESTINATIONS`:
    /// `10.0.0.0/8,fd00::/8`); everything else private, loopback, link-local … is refused. Kept in
    /// ``delivery`` (``DeliveryConfiguration/privateDestinations``), which the FCM client reads.
    public var allowPrivateDestinations: [CIDRBlock] {
        get { delivery.privateDestinations }
        set { delivery.privateDestinations = newValue }
    }

    /// Where webhook posts may connect: public `https` addresses, ``allowPrivateDestinations``,
    /// and loopback (also over `http`) with ``allowInsecureWebhooks``.
    public var webhookDestinations: DestinationPolicy {
        DestinationPolicy(allowedBlocks: allowPrivateDestinations, allowsInsecureLoopback: allowInsecureWebhooks)
    }

    /// Defaults.
    public init() {}

    /// The webhook retry schedule: the one back-off type, with jitter, without a last attempt.
    public var webhookRetry: RetryPolicy {
        RetryPolicy(maxAttempts: .max, baseDelay: webhookRetryBase, maxDelay: webhookRetryMax)
    }

    /// The HTTP server's limits in effect.
    public var httpServer: HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: host, port: port, maxBodyBytes: maxBodyBytes, threads: threads, connectionLimit: maxConnections,
            connectionsPerAddress: maxConnectionsPerAddress, requestTimeoutSeconds: requestTimeoutSeconds,
            trustedProxies: trustedProxies)
    }

    /// The delivery engine's tuning in effect.
    public var engine: DeliveryEngine.Configuration {
        var engine = DeliveryEngine.Configuration()
        engine.maxInFlight = deliveryMaxInFlight
        engine.batchSize = min(engine.batchSize, deliveryMaxInFlight)
        engine.lease = jobLeaseSeconds
        engine.idleWait = pollInterval
        return engine
    }

    /// The store `--database` names (``StoreLocation/parse(_:)``; `--database` is checked when
    /// it is given), or the default SQLite file `<data-dir>/push.sqlite`.
    public var storeLocation: StoreLocation {
        guard let text = databasePath, let location = try? StoreLocation.parse(text) else {
            return .sqlite(path: dataDirectory.appendingPathComponent("push.sqlite"))
        }
        return location
    }

    /// The SQLite database path in effect (meaningless when ``postgresURL`` is set).
    public var resolvedDatabasePath: String {
        if case .sqlite(let path) = storeLocation { return path }
        return dataDirectory.appendingPathComponent("push.sqlite")
    }

    /// The PostgreSQL URL when the store is PostgreSQL.
    public var postgresURL: String? {
        if case .postgres(let url) = storeLocation { return url }
        return nil
    }

    /// The store for logs and messages: the SQLite path, or the PostgreSQL URL without its
    /// password.
    public var storeDescription: String {
        switch storeLocation {
        case .sqlite(let path): return "SQLite " + path
        case .postgres: return "PostgreSQL " + storeLocation.description
        }
    }

    /// The admin key file in effect.
    public var resolvedAdminKeyFile: String {
        adminKeyFile ?? dataDirectory.appendingPathComponent("admin.key")
    }

    /// The secret key file in effect.
    public var resolvedSecretKeyFile: String {
        secretKeyFile ?? dataDirectory.appendingPathComponent("secret.key")
    }
}

/// What the delivery engine sends with (`--sender`).
public enum SenderKind: String, Sendable, CaseIterable {
    /// APNs and FCM.
    case delivery
    /// A line per push in the log; nothing is sent; each push is recorded delivered.
    case log
    /// Nothing is sent; each push is recorded failed ("not sent").
    case none
}

/// A configuration problem, reported before the service starts.
public enum ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// A bad flag or value.
    case invalid(String)
    /// `--help` was given.
    case helpRequested

    public var description: String {
        switch self {
        case .invalid(let message): return message
        case .helpRequested: return "help requested"
        }
    }
}
