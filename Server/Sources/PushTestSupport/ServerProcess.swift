import Foundation
import PushMocks

#if canImport(Glibc)
import Glibc
#endif

/// The built `push-server` binary as a child process: a service that runs until the test stops
/// or kills it (``start(_:environment:)``), or a command that runs to completion
/// (``run(_:environment:)``). The tests' one way of launching the binary.
public final class ServerProcess: @unchecked Sendable {
    // @unchecked: `port` is immutable and the process is only signalled (kill, terminate, wait).
    /// The child process (its id for signals).
    public let process = ChildProcess()
    /// The port it listens on (its "listening on" line).
    public let port: Int

    /// Why a service did not start.
    public struct Failure: Error, CustomStringConvertible {
        /// What it printed before it stopped or the wait ended.
        public let description: String
    }

    /// What a command printed and how it ended.
    public struct Run: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output.
        public var output: String
        /// Standard error.
        public var errors: String
    }

    /// The binary next to the test bundle (same build directory).
    public static var binary: URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ].compactMap { $0?.appendingPathComponent("push-server") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Starts the binary with `arguments` (and `environment` over this process's) and waits for
    /// its "listening on" line, off Swift's cooperative pool (``offThePool(_:)``): the start
    /// blocks, and many tests start one at once.
    public static func start(_ arguments: [String], environment: [String: String] = [:]) async throws -> ServerProcess {
        try await offThePool { try ServerProcess(arguments: arguments, environment: environment) }
    }

    /// Runs the binary with `arguments` to completion, off Swift's cooperative pool.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
        try await offThePool {
            let process = ChildProcess()
            process.executableURL = binary
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let out = output.fileHandleForReading.readUntilEnd()
            let err = errors.fileHandleForReading.readUntilEnd()
            process.waitUntilExit()
            return Run(
                status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                errors: String(decoding: err, as: UTF8.self))
        }
    }

    private init(arguments: [String], environment: [String: String]) throws {
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
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
            throw Failure(description: "push-server did not say where it listens; it printed: \(text)")
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
    public func stop(until deadline: Date, when condition: () throws -> Bool) async rethrows -> Bool {
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
    public func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Sends SIGTERM and waits up to `deadline` seconds for the exit status; a process still
    /// running then is killed (SIGKILL) and `-1` returned, so a lost signal fails the test
    /// instead of hanging it.
    public func terminate(deadline: TimeInterval = 60) -> Int32 {
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

    /// SIGTERM, and waits for the exit.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
