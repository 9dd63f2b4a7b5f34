import APNs
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerSupport

extension ServiceConfiguration {
    /// Reads the environment first, then the flags (which win).
    public static func parse(arguments: [String], environment: [String: String]) throws -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        for option in options {
            if let value = environment[option.environment] {
                try option.apply(&configuration, value)
            }
        }
        // The URL may carry a password: PUSH_DATABASE_URL keeps it out of process listings.
        if let url = environment["PUSH_DATABASE_URL"], !url.isEmpty {
            do {
                _ = try StoreLocation.parse(url)
            } catch {
                throw ConfigurationError.invalid("PUSH_DATABASE_URL: \(error)")
            }
            configuration.databasePath = url
        }
        configuration.adminKey = environment["PUSH_ADMIN_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.secretKey = environment["PUSH_SECRET_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.seedAuthToken = environment["PUSH_SEED_AUTH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { throw ConfigurationError.helpRequested }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.flag == name }) else {
                throw ConfigurationError.invalid("unknown option \(name) (see --help)")
            }
            if option.isSwitch, inlineValue == nil {
                try option.apply(&configuration, "1")
                continue
            }
            guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil) else {
                throw ConfigurationError.invalid("\(name) needs a value")
            }
            if inlineValue == nil { index += 1 }
            try option.apply(&configuration, value)
        }
        // An HTTPS proxy (libcurl's variables) reaches APNs only through libcurl: the client of
        // our own connects directly. Unless a transport was chosen, APNs stays on libcurl then.
        let transportChosen =
            environment["PUSH_APNS_TRANSPORT"] != nil
            || arguments.contains { $0 == "--apns-transport" || $0.hasPrefix("--apns-transport=") }
        if !transportChosen, proxyVariables.contains(where: { !(environment[$0] ?? "").isEmpty }) {
            configuration.delivery.apnsTransport = .curl
        }
        return configuration
    }

    /// The environment variables that send libcurl's HTTPS requests through a proxy.
    static let proxyVariables = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// The `--help` text.
    public static var helpText: String {
        var lines = [
            "push-server: the self-hostable push service (client API, admin API, durable outbox).",
            "",
            "USAGE: push-server [options]",
            "",
            "OPTIONS (each also read from the environment variable shown):",
        ]
        for option in options {
            let flag = option.isSwitch ? option.flag : "\(option.flag) <\(option.placeholder)>"
            lines.append("  \(flag + String(repeating: " ", count: max(0, 34 - flag.count))) \(option.environment)")
            lines.append("      \(option.help)")
        }
        lines += [
            "  -h, --help                         Show this text.",
            "",
            "SECRETS (environment only):",
            "  PUSH_ADMIN_KEY         admin API key (default: read or created in <data-dir>/admin.key)",
            "  PUSH_SECRET_KEY        32-byte key (base64 or hex) sealing provider secrets",
            "                         (default: read or created in <data-dir>/secret.key)",
            "  PUSH_SEED_AUTH_TOKEN   auth token of the --seed-dev user (default: generated)",
            "  PUSH_DATABASE_URL      postgres://user:password@host:port/db (instead of --database, so a",
            "                         password stays out of process listings; or use a libpq ~/.pgpass file)",
        ]
        return lines.joined(separator: "\n")
    }

    struct Option: Sendable {
        let flag: String
        let placeholder: String
        let help: String
        var isSwitch = false
        let apply: @Sendable (inout ServiceConfiguration, String) throws -> Void

        var environment: String {
            "PUSH_" + flag.dropFirst(2).uppercased().replacing("-", with: "_")
        }
    }

    static func number<T: LosslessStringConvertible & Comparable>(_ value: String, _ flag: String, _ range: ClosedRange<T>) throws -> T {
        guard let parsed = T(value), range.contains(parsed) else {
            throw ConfigurationError.invalid("\(flag) must be a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return parsed
    }

    static func flag(_ value: String) -> Bool {
        ["1", "true", "yes", "on"].contains(value.lowercased())
    }

    static let options: [Option] = [
        Option(flag: "--host", placeholder: "ipv4", help: "Address to bind (default 127.0.0.1; 0.0.0.0 for all).") { $0.host = $1 },
        Option(flag: "--port", placeholder: "port", help: "Port (default 8080; 0 picks a free one).") {
            $0.port = try number($1, "--port", 0...65535)
        },
        Option(flag: "--data-dir", placeholder: "dir", help: "Database and key files (default ./data).") { $0.dataDirectory = $1 },
        Option(
            flag: "--database", placeholder: "file|url",
            help: "SQLite file (default <data-dir>/push.sqlite) or postgres://user@host:port/db (also PUSH_DATABASE_URL)."
        ) { configuration, value in
            do {
                _ = try StoreLocation.parse(value)
            } catch {
                throw ConfigurationError.invalid("--database: \(error)")
            }
            configuration.databasePath = value
        },
        Option(flag: "--database-pool", placeholder: "n", help: "PostgreSQL connections per instance (default 8).") {
            $0.databasePoolSize = try number($1, "--database-pool", 1...200)
        },
        Option(flag: "--sqlite-sync", placeholder: "full|normal", help: "SQLite synchronous mode (default full).") { configuration, value in
            guard ["full", "normal"].contains(value.lowercased()) else {
                throw ConfigurationError.invalid("--sqlite-sync must be full or normal")
            }
            configuration.sqliteSynchronousFull = value.lowercased() == "full"
        },
        Option(flag: "--admin-key-file", placeholder: "file", help: "Admin key file (default <data-dir>/admin.key).") {
            $0.adminKeyFile = $1
        },
        Option(flag: "--secret-key-file", placeholder: "file", help: "Key file sealing provider secrets (default <data-dir>/secret.key).") {
            $0.secretKeyFile = $1
        },
        Option(
            flag: "--sender", placeholder: "delivery|log|none",
            help: "What the engine sends with: delivery (APNs/FCM, default), log (log lines only) or none."
        ) { configuration, value in
            guard let kind = SenderKind(rawValue: value) else {
                throw ConfigurationError.invalid("--sender must be delivery, log or none")
            }
            configuration.sender = kind
        },
        Option(flag: "--sender-journal", placeholder: "file", help: "Log sender also appends each job id to this file.") {
            $0.senderJournal = $1
        },
        Option(flag: "--apns-url", placeholder: "url", help: "APNs host override, e.g. a mock (default Apple's hosts).") {
            $0.delivery.apnsBaseURL = $1
        },
        Option(flag: "--fcm-url", placeholder: "url", help: "FCM host override (default https://fcm.googleapis.com).") {
            $0.delivery.fcmBaseURL = $1
        },
        Option(flag: "--ca-file", placeholder: "pem", help: "CA bundle to trust for APNs/FCM instead of the system store.") {
            $0.delivery.caFile = $1
        },
        Option(
            flag: "--allow-private-destinations", placeholder: "cidr,...",
            help: "Private blocks webhooks and FCM token_uri may reach, e.g. 10.0.0.0/8,fd00::/8 (default none)."
        ) { configuration, value in
            do {
                configuration.allowPrivateDestinations = try CIDRBlock.parseList(value)
            } catch {
                throw ConfigurationError.invalid("--allow-private-destinations: \(error) (give blocks such as 10.0.0.0/8,fd00::/8)")
            }
        },
        Option(
            flag: "--allow-insecure-webhooks", placeholder: "",
            help: "Webhook URLs may be http://, to loopback addresses only (development).", isSwitch: true
        ) {
            $0.allowInsecureWebhooks = flag($1)
        },
        Option(flag: "--delivery-max-in-flight", placeholder: "n", help: "Most concurrent sends (default 1400).") {
            $0.deliveryMaxInFlight = try number($1, "--delivery-max-in-flight", 1...100_000)
        },
        Option(flag: "--apns-connections", placeholder: "n", help: "HTTP/2 connections per APNs key (default 4).") {
            $0.delivery.apnsConnections = try number($1, "--apns-connections", 1...64)
        },
        Option(
            flag: "--apns-transport", placeholder: "curl|native",
            help: "What APNs pushes go out with: native (our HTTP/2 client, default; curl behind an HTTPS proxy) or curl (libcurl)."
        ) { configuration, value in
            guard let transport = APNsTransport(rawValue: value.lowercased()) else {
                throw ConfigurationError.invalid("--apns-transport must be curl or native")
            }
            configuration.delivery.apnsTransport = transport
        },
        Option(
            flag: "--breaker-window", placeholder: "n",
            help: "A provider is healthy while a 200 is among its last n answers (default 50)."
        ) {
            $0.delivery.breaker.window = try number($1, "--breaker-window", 1...100_000)
        },
        Option(
            flag: "--breaker-healthy-within", placeholder: "seconds",
            help: "...or while its last 200 is this recent (default 600)."
        ) {
            $0.delivery.breaker.healthyWithin = try number($1, "--breaker-healthy-within", 1...86_400)
        },
        Option(flag: "--max-body-bytes", placeholder: "bytes", help: "Largest request body (default 65536).") {
            $0.maxBodyBytes = try number($1, "--max-body-bytes", 1024...16_777_216)
        },
        Option(flag: "--rate-limit", placeholder: "n", help: "Requests per minute per auth token; 0 = off (default 600).") {
            $0.rateLimitPerMinute = try number($1, "--rate-limit", 0...1_000_000)
        },
        Option(flag: "--rate-burst", placeholder: "n", help: "Burst per auth token (default 60).") {
            $0.rateLimitBurst = try number($1, "--rate-burst", 1...1_000_000)
        },
        Option(flag: "--max-tokens-per-user", placeholder: "n", help: "Tokens kept per user, oldest dropped (default 100).") {
            $0.maxTokensPerUser = try number($1, "--max-tokens-per-user", 1...10_000)
        },
        Option(flag: "--threads", placeholder: "n", help: "HTTP server threads (default 4).") {
            $0.threads = try number($1, "--threads", 1...256)
        },
        Option(
            flag: "--max-connections", placeholder: "n",
            help: "Most connections in all (default 16384; capped by the open-file limit, raised at start)."
        ) {
            $0.maxConnections = try number($1, "--max-connections", 16...1_000_000)
        },
        Option(
            flag: "--max-connections-per-address", placeholder: "n",
            help: "Most connections from one address; 0 = no limit; trusted proxies exempt (default 256)."
        ) {
            $0.maxConnectionsPerAddress = try number($1, "--max-connections-per-address", 0...1_000_000)
        },
        Option(
            flag: "--request-timeout", placeholder: "seconds",
            help: "Seconds a connection has for its whole request (headers and body); traffic does not extend it (default 10)."
        ) {
            $0.requestTimeoutSeconds = try number($1, "--request-timeout", 0.1...3600)
        },
        Option(
            flag: "--trusted-proxy", placeholder: "cidr,...",
            help: "Reverse proxies in front (CIDR blocks or addresses): no per-address limit; X-Forwarded-For names the client."
        ) { configuration, value in
            do {
                configuration.trustedProxies = try CIDRBlock.parseList(value)
            } catch {
                throw ConfigurationError.invalid("--trusted-proxy: \(error) (give addresses or blocks such as 127.0.0.1,10.0.0.0/8)")
            }
        },
        Option(flag: "--webhook-retry-base", placeholder: "seconds", help: "First webhook retry delay, doubled per attempt (default 1).") {
            $0.webhookRetryBase = try number($1, "--webhook-retry-base", 0.001...3600)
        },
        Option(flag: "--webhook-retry-max", placeholder: "seconds", help: "Longest webhook retry delay (default 300).") {
            $0.webhookRetryMax = try number($1, "--webhook-retry-max", 0.001...86_400)
        },
        Option(flag: "--webhook-timeout", placeholder: "seconds", help: "Webhook request timeout (default 10).") {
            $0.webhookTimeout = try number($1, "--webhook-timeout", 0.1...300)
        },
        Option(flag: "--webhook-concurrency", placeholder: "n", help: "Webhook posts in flight per app (default 4).") {
            $0.webhookConcurrency = try number($1, "--webhook-concurrency", 1...64)
        },
        Option(
            flag: "--poll-interval", placeholder: "seconds",
            help: "Outbox poll interval of the delivery engine and webhooks when idle; added jobs wake them (default 0.2)."
        ) {
            $0.pollInterval = try number($1, "--poll-interval", 0.005...60)
        },
        Option(
            flag: "--job-lease", placeholder: "seconds",
            help: "Lease of a claimed push job; a crashed run's jobs retry after it, or at once on restart (default 60)."
        ) {
            $0.jobLeaseSeconds = try number($1, "--job-lease", 0.1...3600)
        },
        Option(
            flag: "--group-batch", placeholder: "n",
            help: "Members of a large group send expanded per transaction in the background (default 1000)."
        ) {
            $0.groupBatchSize = try number($1, "--group-batch", 1...5_000)
        },
        Option(
            flag: "--retention-days", placeholder: "days",
            help: "Days finished jobs, trace events and idempotency keys are kept; 0 keeps all (default 7)."
        ) {
            guard let days = Int($1), (0...36_500).contains(days) else {
                throw ConfigurationError.invalid(
                    "--retention-days must be a whole number of days in 0...36500 (0 keeps everything), not \"\($1)\"")
            }
            $0.retentionDays = days
        },
        Option(flag: "--retention-interval", placeholder: "seconds", help: "Seconds between retention purges (default 3600).") {
            $0.retentionIntervalSeconds = try number($1, "--retention-interval", 0.05...86_400)
        },
        Option(flag: "--seed-dev", placeholder: "", help: "Create a development app, user, auth token and APNs provider.", isSwitch: true) {
            $0.seedDev = flag($1)
        },
        Option(flag: "--seed-app-id", placeholder: "id", help: "App id of the seed (default dev-app).") { $0.seedAppId = $1 },
        Option(flag: "--seed-uid", placeholder: "uid", help: "User id of the seed (default dev-user).") { $0.seedUid = $1 },
        Option(flag: "--seed-provider-id", placeholder: "id", help: "APNs provider id of the seed (default dev-apns).") {
            $0.seedProviderId = $1
        },
        Option(flag: "--seed-fcm-provider-id", placeholder: "id", help: "FCM provider id of the seed (default dev-fcm).") {
            $0.seedFCMProviderId = $1
        },
        Option(flag: "--seed-webhook-url", placeholder: "url", help: "Webhook URL of the seed app.") { $0.seedWebhookURL = $1 },
        Option(flag: "--log-level", placeholder: "level", help: "debug, info, warning or error (default info).") { configuration, value in
            guard let level = LogLevel(name: value) else {
                throw ConfigurationError.invalid("--log-level must be debug, info, warning or error")
            }
            configuration.logLevel = level
        },
    ]
}
