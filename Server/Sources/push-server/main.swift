import CSystem
import Dispatch
import Delivery
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushService
import ServerSupport

// Two malloc arenas instead of up to 8 per core: the threads share freed memory (peak RSS).
_ = csystem_limit_arenas(2)

// push-server: parse flags and environment, start the service, wait for SIGINT/SIGTERM.

/// Writes a line to standard output at once (no buffering: scripts wait for these lines).
func say(_ line: String) {
    StandardStream.out(line)
}

// Subcommands: everything but `serve` (the default) ends here.
let serveArguments: [String]
switch Subcommand.parse(Array(CommandLine.arguments.dropFirst())) {
case .serve(let arguments):
    serveArguments = arguments
case .version:
    say("push-server \(PushServerVersion.current)")
    exit(0)
case .help(let command):
    guard let text = Subcommand.helpText(command) else {
        StandardStream.error("push-server: no command \"\(command ?? "")\"; commands: \(Subcommand.names.joined(separator: ", "))")
        exit(64)
    }
    say(text)
    exit(0)
case .checkProvider(let arguments):
    exit(
        CheckProviderCommand.run(
            arguments, environment: ProcessInfo.processInfo.environment, print: { say($0) }, fail: { StandardStream.error($0) }))
case .unknown(let name):
    StandardStream.error("push-server: no command \"\(name)\"; commands: \(Subcommand.names.joined(separator: ", ")) (push-server --help)")
    exit(64)
}

var configuration: ServiceConfiguration
let deliveryOptions: DeliveryOptions
do {
    // The delivery engine's flags (part 2) first; the service parses the rest.
    let split = try DeliveryOptions.parse(
        arguments: serveArguments, environment: ProcessInfo.processInfo.environment)
    deliveryOptions = split.options
    configuration = try ServiceConfiguration.parse(arguments: split.arguments, environment: split.environment)
    if deliveryOptions.enabled { configuration.sender = "none" }
} catch ConfigurationError.helpRequested {
    say(Subcommand.helpText(nil) ?? "")
    exit(0)
} catch {
    StandardStream.error("push-server: \(error)")
    exit(64)
}

let app: PushServiceApp
do {
    app = try PushServiceApp(configuration: configuration, logger: ServiceLogger(minimum: configuration.logLevel))
} catch {
    StandardStream.error("push-server: cannot start: \(error)")
    exit(1)
}

// The delivery engine consumes the outbox when `--sender delivery` is given.
let delivery: DeliveryService? =
    deliveryOptions.enabled
    ? DeliveryService(
        store: app.store, directory: app.providers, options: deliveryOptions,
        lastRegistration: { appId, token in
            (try? app.store.tokens(appId: appId, uid: nil))?.first { $0.token == token }?.updatedAt
        },
        log: { StandardStream.error($0) })
    : nil
if let delivery {
    ExtraEndpoints.register("GET", "/metrics") {
        (200, "text/plain; version=0.0.4", Data(delivery.metricsText().utf8))
    }
    ExtraEndpoints.register("GET", "/healthz") {
        let body = delivery.health()
        let data = (try? JSONCodec.encodeData(body)) ?? Data("{}".utf8)
        return (body["status"] as? String == "ok" ? 200 : 503, "application/json", data)
    }
    app.attach(deliveryStatus: delivery)
    delivery.start()
}

say(
    "push-server listening on \(app.baseURL) (store: SQLite \(configuration.resolvedDatabasePath), sender: \(delivery == nil ? configuration.sender : "delivery"))"
)
if configuration.adminKey != nil {
    say("admin key: from \(app.adminKeySource); send it in the apikey header")
} else {
    say("admin key: in \(app.adminKeySource); e.g. curl -H \"apikey: $(cat \(app.adminKeySource))\" \(app.baseURL)/apps")
}
if app.seed != nil {
    say("dev seed: app, user, auth token and provider in \(DevSeed.path(dataDirectory: configuration.dataDirectory))")
}

signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
// The handlers run on the main queue: top-level code is main-actor isolated, and the runtime
// stops a process whose main-actor closure runs on any other queue.
let sources = [SIGINT, SIGTERM].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
    source.setEventHandler {
        say("push-server: stopping")
        app.stop()
        delivery?.stop()
        exit(0)
    }
    source.resume()
    return source
}
withExtendedLifetime(sources) {
    dispatchMain()
}
