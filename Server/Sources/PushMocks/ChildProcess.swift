import CSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process of the tests (a mock, a `push-server`, a tool), with the part of
/// Foundation's `Process` interface they use.
///
/// Foundation's `Process.run()` of Swift 6.3.1 crashes now and then on Linux: it lists
/// `/proc/self/fd` copying 256 bytes of each entry's name, which can read past the end of a
/// page (fixed upstream after 6.3.1). The more descriptors a test process holds — PostgreSQL
/// connections, mocks' pipes — the likelier, and it took down a whole test run. This starts
/// children with `posix_spawn` instead (every descriptor but 0–2 closed in the child).
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: configured before run(); the state after it is behind `lock`.
    /// The program.
    public var executableURL: URL?
    /// Its arguments.
    public var arguments: [String] = []
    /// Its environment; nil: this process's.
    public var environment: [String: String]?
    /// A `Pipe` or `FileHandle` for standard output; nil: /dev/null.
    public var standardOutput: Any?
    /// A `Pipe` or `FileHandle` for standard error; nil: /dev/null.
    public var standardError: Any?

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var status: Int32?

    /// Creates an unstarted process.
    public init() {}

    /// Its process id once started.
    public var processIdentifier: Int32 { lock.withLock { pid } }

    /// Starts it.
    public func run() throws {
        guard let path = executableURL?.path else { throw MockError("no executable") }
        let outFD = Self.descriptor(standardOutput)
        let errFD = Self.descriptor(standardError)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in env { free(pointer) }
        }
        var child: pid_t = 0
        let rc = csystem_spawn(path, argv, env, outFD, errFD, &child)
        guard rc == 0 else { throw MockError("cannot start \(path): \(String(cString: strerror(rc)))") }
        lock.withLock { pid = child }
        // The parent keeps only the reading ends of its pipes, so they see the end of file
        // when the child exits.
        (standardOutput as? Pipe)?.fileHandleForWriting.closeFile()
        (standardError as? Pipe)?.fileHandleForWriting.closeFile()
    }

    /// Whether it has not exited yet.
    public var isRunning: Bool {
        lock.withLock {
            guard pid > 0, status == nil else { return false }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = Self.decode(raw) }
            return status == nil
        }
    }

    /// Waits for it to exit.
    public func waitUntilExit() {
        let child = lock.withLock { status == nil ? pid : 0 }
        guard child > 0 else { return }
        var raw: Int32 = 0
        while true {
            let result = waitpid(child, &raw, 0)
            if result == child { break }
            if result < 0, errno != EINTR {
                // Already reaped by isRunning on another thread.
                return
            }
        }
        lock.withLock { status = Self.decode(raw) }
    }

    /// Its exit status, or the signal that ended it (as Foundation's `Process` reports).
    public var terminationStatus: Int32 { lock.withLock { status ?? 0 } }

    /// Sends SIGTERM.
    public func terminate() {
        let child = lock.withLock { status == nil ? pid : 0 }
        if child > 0 { kill(child, SIGTERM) }
    }

    private static func descriptor(_ target: Any?) -> Int32 {
        if let pipe = target as? Pipe { return pipe.fileHandleForWriting.fileDescriptor }
        if let handle = target as? FileHandle, handle !== FileHandle.nullDevice { return handle.fileDescriptor }
        return -1
    }

    private static func decode(_ raw: Int32) -> Int32 {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }
}
