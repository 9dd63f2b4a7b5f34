import Foundation
import PushMocks

/// The built `push-server` binary run as a child process (for crash tests).
final class ServerProcess: @unchecked Sendable {
    // @unchecked: `port` is immutable and Process is only signalled (kill, terminate, wait).
    let process = ChildProcess()
    let port: Int

    /// The binary next to the test bundle (same build directory).
    static var binary: URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ].compactMap { $0?.appendingPathComponent("push-server") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Starts the binary and waits for its "listening on" line.
    init(arguments: [String], environment: [String: String]) throws {
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        var found: Int?
        while found == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.readChunk()
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                found = Int(text[range].split(separator: ":").last ?? "")
            }
        }
        guard let found else {
            process.terminate()
            throw RawHTTP.Failure.noResponse
        }
        port = found
        // Keep draining stdout so the child never blocks on a full pipe: a thread that reads
        // until the child's end of file and holds the pipe until then. (Not a
        // readabilityHandler: its dispatch source watched a descriptor that could be closed
        // under it, and libdispatch crashed the test process in its event loop.)
        Thread.detachNewThread {
            while !output.fileHandleForReading.readChunk().isEmpty {}
        }
    }

    /// Stops the process (SIGSTOP) until `condition` holds while it is stopped, letting it run
    /// again (SIGCONT) for 5 ms between tries; true when it holds (the process is left stopped),
    /// false at `deadline` (left running). A stopped service can neither send nor record
    /// anything, so what `condition` reads then is what a kill at that moment leaves.
    func stop(until deadline: Date, when condition: () throws -> Bool) async rethrows -> Bool {
        let pid = process.processIdentifier
        while Date() < deadline {
            kill(pid, SIGSTOP)
            if try condition() { return true }
            kill(pid, SIGCONT)
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return false
    }

    /// SIGKILL: no shutdown code runs.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then the exit status once the process has stopped.
    /// Sends SIGTERM and waits up to `deadline` seconds; a process still running then is killed
    /// (SIGKILL) and `-1` returned, so a lost signal fails the test instead of hanging it.
    func terminate(deadline: TimeInterval = 60) -> Int32 {
        process.terminate()
        let end = Date().addingTimeInterval(deadline)
        while process.isRunning, Date() < end { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        return process.terminationStatus
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
