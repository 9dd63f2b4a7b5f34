import Delivery
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushService
import ServerSupport

/// The subcommands of `push-server`: `serve` (the default), `check-provider`, `migrate-store`,
/// `help`, `version`.
enum Subcommand: Equatable {
    case serve([String])
    case checkProvider([String])
    case migrateStore([String])
    case help(String?)
    case version
    case unknown(String)

    static let names = ["serve", "check-provider", "migrate-store", "help", "version"]

    static func parse(_ arguments: [String]) -> Subcommand {
        guard let first = arguments.first else { return .serve([]) }
        let rest = Array(arguments.dropFirst())
        let wantsHelp = rest.contains("--help") || rest.contains("-h")
        switch first {
        case "--version", "version": return .version
        case "--help", "-h": return .help(nil)
        case "help": return .help(rest.first)
        case "serve": return wantsHelp ? .help("serve") : .serve(rest)
        case "check-provider": return wantsHelp ? .help("check-provider") : .checkProvider(rest)
        case "migrate-store": return wantsHelp ? .help("migrate-store") : .migrateStore(rest)
        default: return first.hasPrefix("-") ? .serve(arguments) : .unknown(first)
        }
    }

    /// The text of `push-server help [command]`; nil for an unknown command.
    static func helpText(_ command: String?) -> String? {
        switch command {
        case nil: return overview + "\n\n" + serveHelp
        case "serve": return serveHelp
        case "check-provider": return checkProviderHelp
        case "migrate-store": return MigrateStoreCommand.help
        case "help": return "USAGE: push-server help [command]\n\nPrints the help of a command: " + names.joined(separator: ", ") + "."
        case "version": return "USAGE: push-server --version\n\nPrints the version (\(PushServerVersion.current))."
        default: return nil
        }
    }

    static let overview = """
        push-server \(PushServerVersion.current): the self-hostable push service for iOS chat and calling apps.

        COMMANDS:
          push-server [serve] [options]       Run the service (the default command; options below).
          push-server check-provider --app <app> --provider <provider> [--token <device token>]
                                              Check a stored APNs or FCM provider; with a device token,
                                              send one push and explain the answer.
          push-server migrate-store --from <store> --to <store> [--batch <rows>]
                                              Copy every table of a stopped service's store into an
                                              empty one (SQLite -> PostgreSQL, or back).
          push-server help [command]          Help for one command (also: push-server <command> --help).
          push-server --version               Print the version.
        """

    static var serveHelp: String { ServiceConfiguration.helpText }

    static let checkProviderHelp = """
        USAGE: push-server check-provider --app <app id> --provider <provider id> [--token <device token>] [options]

        Checks a provider stored in the service's database, with the service's secret key (it can run
        while the service runs):
          without --token  the key unseals, parses and signs a provider token (APNs: a JWT, ES256;
                           FCM: the OAuth assertion, RS256). Nothing is sent.
          with --token     also sends one push to that device and explains the answer in plain words:
                           a wrong team or key id (InvalidProviderToken), a wrong topic or bundle id
                           (DeviceTokenNotForTopic, TopicDisallowed), a token of the other environment
                           (BadDeviceToken: sandbox vs production), a dead token (Unregistered), …
        Keys and signed tokens are never printed.

        EXIT STATUS: 0 when every step worked; 1 when one failed (the output says what to fix);
        64 for a usage error.

        OPTIONS:
          --app <app id>                     The app (required).
          --provider <provider id>           The provider (required).
          --token <device token>             Send one push to this APNs device token (hex) or FCM token.
          --push-type alert|background       The test push (default alert: the device shows
                                             "Test push from push-server check-provider").
          --environment sandbox|production   Use this APNs environment instead of the provider's.
          --timeout <seconds>                How long to wait for the answer (default 15).
          --data-dir <dir>                   The service's data directory (PUSH_DATA_DIR; default ./data).
          --database <file>                  Its SQLite file (PUSH_DATABASE).
          --secret-key-file <file>           The key that sealed the providers (PUSH_SECRET_KEY_FILE);
                                             PUSH_SECRET_KEY wins, as for the service.
          --apns-url, --fcm-url, --ca-file   Other APNs/FCM hosts and the CA to trust (test servers).
          --allow-private-destinations <cidr,...>
                                             Blocks a token_uri other than Google's may lead into (a
                                             test server), as for the service.
          -h, --help                         Show this text.
        """
}

/// A subcommand's own flags, `--flag value` or `--flag=value`, read one at a time.
struct SubcommandFlag {
    /// The flag's name (`--app`).
    let name: String
    /// Its value written after `=`, if it was.
    let inline: String?

    /// Reads the argument at `index` as a flag (its name, and the value after `=` if any).
    init(_ argument: String) {
        if let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inline = String(argument[argument.index(after: equals)...])
        } else {
            name = argument
            inline = nil
        }
    }

    /// The flag's value (inline, or the next argument), moving `index` past both.
    func value(in arguments: [String], index: inout Int) throws -> String {
        if let inline {
            index += 1
            return inline
        }
        guard index + 1 < arguments.count else { throw CheckProviderCommand.UsageError(description: "\(name) needs a value") }
        index += 2
        return arguments[index - 1]
    }
}

/// `push-server check-provider`: parses its flags, reads the provider, runs ``ProviderCheck``.
enum CheckProviderCommand {
    struct Options {
        var app = ""
        var provider = ""
        var token: String?
        var push = ProviderCheck.TestPush.alert
        var production: Bool?
        var timeout = 15.0
        var rest: [String] = []
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let flag = SubcommandFlag(argument)
            let own = ["--app", "--provider", "--token", "--push-type", "--environment", "--timeout"]
            guard own.contains(flag.name) else {
                options.rest.append(argument)
                index += 1
                continue
            }
            let value = try flag.value(in: arguments, index: &index)
            switch flag.name {
            case "--app": options.app = value
            case "--provider": options.provider = value
            case "--token": options.token = value.filter { $0 != " " && $0 != "<" && $0 != ">" }
            case "--push-type":
                guard let push = ProviderCheck.TestPush(rawValue: value) else {
                    throw UsageError(description: "--push-type must be alert or background")
                }
                options.push = push
            case "--environment":
                guard value == "sandbox" || value == "production" else {
                    throw UsageError(description: "--environment must be sandbox or production")
                }
                options.production = value == "production"
            default:
                guard let seconds = Double(value), seconds > 0, seconds <= 300 else {
                    throw UsageError(description: "--timeout must be 1…300 seconds")
                }
                options.timeout = seconds
            }
        }
        guard !options.app.isEmpty, !options.provider.isEmpty else {
            throw UsageError(description: "--app and --provider are required (push-server help check-provider)")
        }
        return options
    }

    /// Runs the check and returns the exit status.
    static func run(_ arguments: [String], environment: [String: String], print: (String) -> Void, fail: (String) -> Void) -> Int32 {
        let options: Options
        let configuration: ServiceConfiguration
        do {
            options = try parse(arguments)
            configuration = try ServiceConfiguration.parse(arguments: options.rest, environment: environment)
        } catch {
            fail("push-server check-provider: \(error)")
            return 64
        }
        let credentials: ProviderCredentials
        var settings = configuration.delivery
        do {
            // The check says what it finds in its own lines; nothing else is logged.
            let stored = try StoredProviders(configuration: configuration, logger: .silent)
            settings.providerTokenSharing = stored.providerTokenSharing
            guard try stored.appExists(options.app) else {
                fail("push-server check-provider: no app \"\(options.app)\" in \(configuration.storeDescription)")
                return 1
            }
            guard let found = try stored.credentials(appId: options.app, providerId: options.provider) else {
                let known = ((try? stored.providerIds(appId: options.app)) ?? []).sorted()
                fail(
                    "push-server check-provider: app \(options.app) has no provider \"\(options.provider)\""
                        + (known.isEmpty ? " (it has none)" : " (it has: \(known.joined(separator: ", ")))"))
                return 1
            }
            credentials = found
        } catch {
            fail("push-server check-provider: \(error)")
            return 1
        }
        print(describe(credentials, app: options.app, provider: options.provider))
        let report: ProviderCheck.Report
        if let token = options.token {
            settings.requestTimeoutMilliseconds = Int(options.timeout * 1000)
            let result = Locked<ProviderCheck.Report?>(nil)
            let done = DispatchSemaphore(value: 0)
            let push = options.push
            let production = options.production
            Task {
                let found = await ProviderCheck.sendTestPush(
                    credentials, deviceToken: token, push: push, production: production, configuration: settings)
                result.withLock { $0 = found }
                done.signal()
            }
            done.wait()
            report = result.withLock { $0 } ?? ProviderCheck.Report()
        } else {
            report = ProviderCheck.checkKey(credentials)
        }
        for line in report.lines { print(line) }
        if options.token == nil, report.passed {
            print(
                "note  only \(credentials.isAPNs ? "APNs" : "FCM") can tell whether these credentials are accepted and which apps "
                    + "they may push to: add --token <device token> to send one test push")
        }
        print(report.passed ? "check-provider: the provider works" : "check-provider: the provider needs fixing (see FAIL above)")
        return report.passed ? 0 : 1
    }

    static func describe(_ credentials: ProviderCredentials, app: String, provider: String) -> String {
        switch credentials {
        case .apns(let apns):
            return "APNs provider \(provider) of app \(app): key id \(apns.keyId), team id \(apns.teamId), topic \(apns.bundleId), "
                + "\(apns.production ? "production" : "sandbox"); the .p8 key is sealed in the database"
        case .fcm(let fcm):
            return "FCM provider \(provider) of app \(app): project \(fcm.projectId), service account \(fcm.clientEmail); "
                + "its private key is sealed in the database"
        }
    }
}

extension ProviderCredentials {
    var isAPNs: Bool {
        if case .apns = self { return true }
        return false
    }
}
