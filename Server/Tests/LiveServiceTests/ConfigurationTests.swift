import APNs
import CurlHTTP
import Foundation
import HTTPServer
import PushService
import ServerSupport
import PushTestSupport
import Testing

/// Flags, environment variables and `--help`.
@Suite struct ConfigurationTests {
    @Test func flagsWinOverEnvironment() async throws {
        let configuration = try ServiceConfiguration.parse(
            arguments: ["--port", "9090", "--data-dir=/tmp/x", "--seed-dev", "--sender", "none"],
            environment: ["PUSH_PORT": "7000", "PUSH_RATE_LIMIT": "5", "PUSH_ADMIN_KEY": "k", "PUSH_HOST": "0.0.0.0"])
        #expect(configuration.port == 9090)
        #expect(configuration.dataDirectory == "/tmp/x")
        #expect(configuration.resolvedDatabasePath == "/tmp/x/push.sqlite")
        #expect(configuration.rateLimitPerMinute == 5)
        #expect(configuration.adminKey == "k")
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.seedDev)
        #expect(configuration.sender == .none)
    }

    /// `--database` names SQLite or PostgreSQL; PUSH_DATABASE_URL keeps a password off the
    /// command line, and no message shows it.
    /// The connection limits (issue 24): defaults, flags, environment, and a clear error for a
    /// proxy that is not an address or a block.
    @Test func connectionLimitsAndTrustedProxies() throws {
        let defaults = try ServiceConfiguration.parse(arguments: [], environment: [:]).httpServer
        #expect(defaults.connectionLimit == 16_384 && defaults.connectionsPerAddress == 256 && defaults.requestTimeoutSeconds == 10)
        #expect(defaults.trustedProxies.isEmpty)
        let set = try ServiceConfiguration.parse(
            arguments: ["--max-connections", "5000", "--max-connections-per-address=0", "--trusted-proxy", "10.0.0.0/8, 127.0.0.1"],
            environment: ["PUSH_REQUEST_TIMEOUT": "2.5"]
        ).httpServer
        #expect(set.connectionLimit == 5_000 && set.connectionsPerAddress == 0 && set.requestTimeoutSeconds == 2.5)
        #expect(set.trustedProxies == [try CIDRBlock(parsing: "10.0.0.0/8"), try CIDRBlock(parsing: "127.0.0.1")])
        for bad in ["10.0.0.0/33", "example.com", "10.0.0.0/8,,x"] {
            #expect(throws: ConfigurationError.self) {
                try ServiceConfiguration.parse(arguments: ["--trusted-proxy", bad], environment: [:])
            }
        }
        // A socket is an open file: the total is capped below the process's limit.
        #expect(HTTPServer.connectionLimit(16_384, openFiles: 1_024) == 768)
        #expect(HTTPServer.connectionLimit(16_384, openFiles: 1_048_576) == 16_384)
        #expect(HTTPServer.connectionLimit(16_384, openFiles: nil) == 16_384)
    }

    @Test func theStoreIsSQLiteOrPostgreSQL() throws {
        let sqlite = try ServiceConfiguration.parse(arguments: ["--database", "sqlite:/tmp/p.sqlite"], environment: [:])
        #expect(sqlite.storeLocation == .sqlite(path: "/tmp/p.sqlite") && sqlite.postgresURL == nil)
        #expect(sqlite.storeDescription == "SQLite /tmp/p.sqlite")
        let url = "postgres://push:s3cret@db.internal:5432/push"
        let postgres = try ServiceConfiguration.parse(arguments: ["--database-pool", "12"], environment: ["PUSH_DATABASE_URL": url])
        #expect(postgres.postgresURL == url && postgres.databasePoolSize == 12)
        #expect(postgres.storeDescription == "PostgreSQL postgres://push:***@db.internal:5432/push")
        let flagWins = try ServiceConfiguration.parse(arguments: ["--database", "/tmp/q.sqlite"], environment: ["PUSH_DATABASE_URL": url])
        #expect(flagWins.resolvedDatabasePath == "/tmp/q.sqlite")
        #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.parse(arguments: ["--database", "mysql://root:pw@host/db"], environment: [:])
        }
        do {
            _ = try ServiceConfiguration.parse(arguments: ["--database", "mysql://root:pw@host/db"], environment: [:])
        } catch {
            #expect(!"\(error)".contains(":pw@"), "\(error)")
        }
    }

    /// `--sender` and the delivery flags are read in one place, the service's parser.
    @Test func senderAndDeliveryFlagsAreParsedOnce() throws {
        let defaults = try ServiceConfiguration.parse(arguments: ["--port", "0"], environment: [:])
        #expect(defaults.sender == .delivery, "with no sender named, the service delivers")
        #expect(defaults.engine.lease == 60)
        let parsed = try ServiceConfiguration.parse(
            arguments: ["--sender=log", "--apns-url", "https://127.0.0.1:1", "--job-lease", "5", "--delivery-max-in-flight", "50"],
            environment: ["PUSH_APNS_CONNECTIONS": "3", "PUSH_CA_FILE": "/tmp/ca.pem"])
        #expect(parsed.sender == .log)
        #expect(parsed.delivery.apnsBaseURL == "https://127.0.0.1:1")
        #expect(parsed.delivery.apnsConnections == 3)
        #expect(parsed.delivery.caFile == "/tmp/ca.pem")
        #expect(parsed.engine.lease == 5, "the engine honours --job-lease")
        #expect(parsed.engine.maxInFlight == 50)
        #expect(parsed.engine.batchSize == 50)
        #expect(try ServiceConfiguration.parse(arguments: [], environment: ["PUSH_SENDER": "none"]).sender == .none)
        let breaker = try ServiceConfiguration.parse(
            arguments: ["--breaker-window", "20"], environment: ["PUSH_BREAKER_HEALTHY_WITHIN": "120"]
        ).delivery.breaker
        #expect(breaker.window == 20 && breaker.healthyWithin == 120)
    }

    /// `--apns-transport`: the HTTP/2 client of our own by default, libcurl when asked, and
    /// libcurl when an HTTPS proxy is set and no transport was chosen (only libcurl reads the
    /// proxy variables).
    @Test func theAPNsTransportIsChosenByFlag() throws {
        func transport(_ arguments: [String], _ environment: [String: String] = [:]) throws -> APNsTransport {
            try ServiceConfiguration.parse(arguments: arguments, environment: environment).delivery.apnsTransport
        }
        #expect(try transport([]) == .native)
        #expect(try transport(["--apns-transport", "curl"]) == .curl)
        #expect(try transport([], ["PUSH_APNS_TRANSPORT": "curl"]) == .curl)
        #expect(try transport([], ["https_proxy": "http://proxy:3128"]) == .curl)
        #expect(try transport(["--apns-transport=native"], ["HTTPS_PROXY": "http://proxy:3128"]) == .native)
    }

    @Test(arguments: [
        ["--port", "70000"], ["--nope"], ["--port"], ["--sender", "apns"], ["--sqlite-sync", "off"], ["--apns-connections", "0"],
        ["--apns-transport", "quic"],
    ])
    func badFlagsAreReported(_ arguments: [String]) {
        #expect(throws: ConfigurationError.self) { try ServiceConfiguration.parse(arguments: arguments, environment: [:]) }
    }

    /// `--retention-days`: 7 by default, 0 keeps everything, anything else a whole number of
    /// days; a bad value stops the start with a message naming the flag.
    @Test func retentionDaysAreParsedAndChecked() throws {
        let defaults = try ServiceConfiguration.parse(arguments: [], environment: [:])
        #expect(defaults.retentionDays == 7)
        #expect(defaults.retentionIntervalSeconds == 3600)
        #expect(try ServiceConfiguration.parse(arguments: ["--retention-days", "0"], environment: [:]).retentionDays == 0)
        #expect(try ServiceConfiguration.parse(arguments: ["--retention-days=30"], environment: [:]).retentionDays == 30)
        let fromEnvironment = try ServiceConfiguration.parse(
            arguments: [], environment: ["PUSH_RETENTION_DAYS": "2", "PUSH_RETENTION_INTERVAL": "0.5"])
        #expect(fromEnvironment.retentionDays == 2 && fromEnvironment.retentionIntervalSeconds == 0.5)
        #expect(
            try ServiceConfiguration.parse(arguments: ["--retention-days", "3"], environment: ["PUSH_RETENTION_DAYS": "9"])
                .retentionDays == 3)
        for bad in [["--retention-days", "-1"], ["--retention-days", "seven"], ["--retention-days", "1.5"], ["--retention-days", ""]] {
            #expect {
                try ServiceConfiguration.parse(arguments: bad, environment: [:])
            } throws: { error in
                "\(error)".contains("--retention-days")
            }
        }
        #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.parse(arguments: [], environment: ["PUSH_RETENTION_DAYS": "-3"])
        }
        #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.parse(arguments: ["--retention-interval", "0"], environment: [:])
        }
    }

    /// `--allow-private-destinations` and `--allow-insecure-webhooks` (issue 24): off by default;
    /// a bad block stops the start with a message naming the flag and what is wrong.
    @Test func destinationFlagsAreParsedAndChecked() throws {
        let defaults = try ServiceConfiguration.parse(arguments: [], environment: [:])
        #expect(defaults.allowPrivateDestinations.isEmpty && !defaults.allowInsecureWebhooks)
        #expect(defaults.webhookDestinations == DestinationPolicy())
        let parsed = try ServiceConfiguration.parse(
            arguments: ["--allow-private-destinations", "10.0.0.0/8, fd00::/8,127.0.0.1", "--allow-insecure-webhooks"], environment: [:])
        #expect(parsed.allowPrivateDestinations.map(\.description) == ["10.0.0.0/8", "fd00::/8", "127.0.0.1/32"])
        #expect(parsed.delivery.privateDestinations == parsed.allowPrivateDestinations, "the FCM token exchange gets them too")
        #expect(parsed.allowInsecureWebhooks && parsed.webhookDestinations.allowsInsecureLoopback)
        let fromEnvironment = try ServiceConfiguration.parse(
            arguments: [], environment: ["PUSH_ALLOW_PRIVATE_DESTINATIONS": "192.168.0.0/16", "PUSH_ALLOW_INSECURE_WEBHOOKS": "1"])
        #expect(fromEnvironment.allowPrivateDestinations.map(\.description) == ["192.168.0.0/16"] && fromEnvironment.allowInsecureWebhooks)
        for (value, problem) in [
            ("10.0.0.1/8", "bits are set after the first 8; did you mean 10.0.0.0/8?"), ("intranet", "is not an IPv4"),
            ("10.0.0.0/40", "the prefix length must be a number in 0...32"),
        ] {
            #expect {
                try ServiceConfiguration.parse(arguments: ["--allow-private-destinations", value], environment: [:])
            } throws: { error in
                "\(error)".hasPrefix("--allow-private-destinations: \"\(value)\" is not a CIDR block") && "\(error)".contains(problem)
            }
        }
    }

    @Test func helpListsEveryFlagWithItsVariable() async throws {
        #expect(throws: ConfigurationError.self) { try ServiceConfiguration.parse(arguments: ["--help"], environment: [:]) }
        let help = ServiceConfiguration.helpText
        for flag in [
            "--port", "--data-dir", "--host", "--seed-dev", "--rate-limit", "--retention-days", "PUSH_RETENTION_DAYS", "PUSH_PORT",
            "PUSH_DATA_DIR", "PUSH_ADMIN_KEY", "--allow-private-destinations", "PUSH_ALLOW_PRIVATE_DESTINATIONS",
            "--allow-insecure-webhooks", "PUSH_ALLOW_INSECURE_WEBHOOKS",
        ] {
            #expect(help.contains(flag), "help lacks \(flag)")
        }
    }

    @Test func binaryPrintsWhereItListensAndWhereTheAdminKeyIs() async throws {
        let directory = NSTemporaryDirectory() + "push-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await ServerProcess.start(["--port", "0", "--data-dir", directory, "--sender", "none"])
        defer { server.stop() }
        let key = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.count > 20)
        let permissions = try FileManager.default.attributesOfItem(atPath: directory + "/admin.key")[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(try await RawHTTP.json(port: server.port, "GET", "/apps", headers: ["apikey": key]).status == 200)
    }

    /// SIGTERM and SIGINT stop the service cleanly (exit 0), with the delivery engine running
    /// (the default) and with a stand-in sender.
    @Test(arguments: [[], ["--sender", "none"]])
    func signalsStopTheServiceCleanly(_ extra: [String]) async throws {
        let directory = NSTemporaryDirectory() + "push-signal-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await ServerProcess.start(["--port", "0", "--data-dir", directory] + extra)
        let status = try await offThePool { server.terminate() }
        #expect(status == 0)
    }
}
