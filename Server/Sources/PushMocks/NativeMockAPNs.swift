import Foundation

/// The native mock APNs (`apns-mock-native`, nghttp2 + OpenSSL) as a child process: fast
/// enough for tens of thousands of pushes. It answers every request 200 after a fixed
/// latency and appends the `apns-id` of each answered request to a log, so a test counts
/// at the mock how often each job was sent.
public final class NativeMockAPNs: @unchecked Sendable {
    // @unchecked: set in init, only signalled afterwards.
    private let process = ChildProcess()
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Its base URL.
    public var baseURL: String { "https://127.0.0.1:\(port)" }
    /// The credentials it presents (the test CA).
    public let credentials: TestCredentials
    /// The answer log: one `apns-id` a line.
    public let logPath: String

    /// Starts the mock from the build directory that holds `binaryDirectory`'s executables.
    public init(binaryDirectory: URL, latencyMilliseconds: Int) throws {
        credentials = try TestCredentials.shared.get()
        logPath = NSTemporaryDirectory() + "apns-native-\(UUID().uuidString).log"
        process.executableURL = binaryDirectory.appendingPathComponent("apns-mock-native")
        process.arguments = [
            "--cert", credentials.serverCertificate, "--key", credentials.serverKey, "--port", "0",
            "--latency-ms", String(latencyMilliseconds), "--log", logPath,
        ]
        port = try MockProcess.startAndReadPort(process, name: "apns-mock-native")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// The apns-ids answered 200 so far, in order (an id twice is a duplicate send).
    public func answered() -> [String] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// How many requests were answered so far (cheaper than `answered()`: counts lines).
    public func answeredCount() -> Int {
        guard let data = FileManager.default.contents(atPath: logPath) else { return 0 }
        return data.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
    }

    /// Stops the mock.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
