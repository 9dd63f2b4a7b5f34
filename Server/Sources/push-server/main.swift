import Foundation
import PushService

// push-server: parse flags and environment, start the service, wait for SIGINT/SIGTERM.

/// Writes a line to standard output at once (no buffering: scripts wait for these lines).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let configuration: ServiceConfiguration
do {
    configuration = try ServiceConfiguration.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch ConfigurationError.helpRequested {
    say(ServiceConfiguration.helpText)
    exit(0)
} catch {
    FileHandle.standardError.write(Data("push-server: \(error)\n".utf8))
    exit(64)
}

let app: PushServiceApp
do {
    app = try PushServiceApp(configuration: configuration, logger: ServiceLogger(minimum: configuration.logLevel))
} catch {
    FileHandle.standardError.write(Data("push-server: cannot start: \(error)\n".utf8))
    exit(1)
}

say("push-server listening on \(app.baseURL) (store: SQLite \(configuration.resolvedDatabasePath), sender: \(configuration.sender))")
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
let signalQueue = DispatchQueue(label: "push-server.signals")
let sources = [SIGINT, SIGTERM].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
    source.setEventHandler {
        say("push-server: stopping")
        app.stop()
        exit(0)
    }
    source.resume()
    return source
}
withExtendedLifetime(sources) {
    dispatchMain()
}
