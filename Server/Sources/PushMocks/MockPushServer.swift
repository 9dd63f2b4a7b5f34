import Foundation

/// The Python mock APNs + FCM (`Mocks/mock_push.py`) as a child process of a test.
///
/// Each instance has its own script file (per-token answers) and request log. `restart()`
/// kills the process and starts a new one on the same port, to test lost connections.
public final class MockPushServer: @unchecked Sendable {
    // @unchecked: `process` and `port` change only in init/restart/stop, which tests call
    // from one task at a time.

    /// One logged request, as the mock wrote it (see `mock_push.py`).
    public typealias Entry = [String: Any]

    /// The port the mock listens on (127.0.0.1).
    public private(set) var port: Int = 0
    /// The mock's base URL.
    public var baseURL: String { "https://127.0.0.1:\(port)" }
    /// The credentials it trusts and presents.
    public let credentials: TestCredentials
    private let directory: String
    private let extraArguments: [String]
    private var process: ChildProcess?

    /// Starts a mock.
    /// - Parameters:
    ///   - latencyMilliseconds: delay before every APNs/FCM answer.
    ///   - maxStreams: concurrent streams allowed once a connection is authenticated.
    public init(latencyMilliseconds: Int = 0, maxStreams: Int = 1000) throws {
        credentials = try TestCredentials.shared.get()
        directory = NSTemporaryDirectory() + "push-mock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        extraArguments = ["--latency-ms", String(latencyMilliseconds), "--max-streams", String(maxStreams)]
        try start(port: 0)
    }

    deinit { stop() }

    /// The APNs key id the mock expects in the JWT header.
    public static let keyId = "TESTKEY123"
    /// The team id the mock expects as `iss`.
    public static let teamId = "TESTTEAM12"

    /// Sets the answers for tokens: each request for a token takes the next answer, the last
    /// one repeats. Answer fields: status, reason, timestamp (ms), retry_after, delay_ms,
    /// fcm_error.
    public func script(_ answers: [String: [[String: Any]]]) throws {
        let data = try JSONSerialization.data(withJSONObject: answers)
        let temporary = directory + "/script.tmp"
        try data.write(to: URL(fileURLWithPath: temporary))
        _ = rename(temporary, directory + "/script.json")
    }

    /// Every request logged so far, oldest first.
    public func log() -> [Entry] {
        guard let text = try? String(contentsOfFile: directory + "/log.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? Entry
        }
    }

    /// Logged requests of one kind (`apns`, `fcm`, `oauth`, `violation`).
    public func log(kind: String) -> [Entry] { log().filter { $0["kind"] as? String == kind } }

    /// Kills the mock and starts it again on the same port (connections are lost).
    public func restart(downFor seconds: Double = 0) throws {
        let port = self.port
        stop()
        if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
        try start(port: port)
    }

    /// Kills the mock.
    public func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    private func start(port requested: Int) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", MockPaths.mocks + "/mock_push.py", "--port", String(requested),
                "--cert", credentials.serverCertificate, "--key", credentials.serverKey,
                "--apns-key", credentials.apnsPublicKey, "--fcm-key", credentials.fcmPublicKey,
                "--key-id", Self.keyId, "--team-id", Self.teamId,
                "--script", directory + "/script.json", "--log", directory + "/log.jsonl",
            ] + extraArguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var output = ""
        let deadline = Date().addingTimeInterval(15)
        while !output.contains("\n"), Date() < deadline {
            let chunk = pipe.fileHandleForReading.readChunk()
            if chunk.isEmpty { break }
            output += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = output.split(separator: "\n").first, line.hasPrefix("PORT "),
            let port = Int(line.dropFirst(5))
        else {
            kill(process.processIdentifier, SIGKILL)
            throw MockError("mock_push.py did not start: \(output)")
        }
        self.process = process
        self.port = port
    }
}
