import CSystem
import Dispatch
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
case .migrateStore(let arguments):
    exit(
        MigrateStoreCommand.run(
            arguments, environment: ProcessInfo.processInfo.environment, print: { say($0) }, fail: { StandardStream.error($0) }))
case .unknown(let name):
    StandardStream.error("push-server: no command \"\(name)\"; commands: \(Subcommand.names.joined(separator: ", ")) (push-server --help)")
    exit(64)
}

let configuration: ServiceConfiguration
do {
    // Every flag, `--sender` and the delivery engine's included, is read by one parser.
    configuration = try ServiceConfiguration.parse(arguments: serveArguments, environment: ProcessInfo.processInfo.environment)
} catch ConfigurationError.helpRequested {
    say(Subcommand.helpText(nil) ?? "")
    exit(0)
} catch {
    StandardStream.error("push-server: \(error)")
    exit(64)
}

// SIGINT and SIGTERM are blocked in every thread from here on (threads inherit the mask), and
// the main thread takes them with sigwait (at the end): a stop signal sent at any moment, even while the service
// is still starting, waits pending instead of being lost or killing the process half-way.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

let app: PushServiceApp
do {
    app = try PushServiceApp(configuration: configuration, logger: Logger(level: configuration.logLevel))
} catch {
    StandardStream.error("push-server: cannot start: \(error)")
    exit(1)
}

say(
    "push-server listening on \(app.baseURL) (store: \(configuration.storeDescription), sender: \(configuration.sender.rawValue))"
)
if configuration.adminKey != nil {
    say("admin key: from \(app.adminKeySource); send it in the apikey header")
} else {
    say("admin key: in \(app.adminKeySource); e.g. curl -H \"apikey: $(cat \(app.adminKeySource))\" \(app.baseURL)/apps")
}
if app.seed != nil {
    say("dev seed: app, user, auth token and provider in \(DevSeed.path(dataDirectory: configuration.dataDirectory))")
}

// The main thread waits for the stop signal itself (nothing in the service uses the main
// queue): it keeps the blocked mask, so no thread but this sigwait ever takes SIGINT or SIGTERM.
var signalNumber: Int32 = 0
while sigwait(&stopSignals, &signalNumber) != 0 {}
say("push-server: stopping")
app.stop()
exit(0)
