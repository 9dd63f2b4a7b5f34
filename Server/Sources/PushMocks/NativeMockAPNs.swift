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
    /// The log of distinct provider tokens (`--jwt-log`), when `recordJWTs` was set.
    public let jwtLogPath: String?

    /// Starts the mock from the build directory that holds `binaryDirectory`'s executables.
    /// `recordJWTs`: the mock also notes every distinct bearer token it is sent (see ``jwts()``).
    public init(binaryDirectory: URL, latencyMilliseconds: Int, recordJWTs: Bool = false) throws {
        credentials = try TestCredentials.shared.get()
        let base = NSTemporaryDirectory() + "apns-native-\(UUID().uuidString)"
        logPath = base + ".log"
        jwtLogPath = recordJWTs ? base + ".jwt.log" : nil
        process.executableURL = binaryDirectory.appendingPathComponent("apns-mock-native")
        process.arguments =
            [
                "--cert", credentials.serverCertificate, "--key", credentials.serverKey, "--port", "0",
                "--latency-ms", String(latencyMilliseconds), "--log", logPath,
            ] + (jwtLogPath.map { ["--jwt-log", $0] } ?? [])
        port = try MockProcess.startAndReadPort(process, name: "apns-mock-native")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: logPath)
        if let jwtLogPath { try? FileManager.default.removeItem(atPath: jwtLogPath) }
    }

    /// A provider token (JWT) the mock was sent, as first seen: who signed it and when.
    public struct SeenJWT: Sendable, Hashable {
        /// The header's `kid` (the APNs key id).
        public var keyId: String
        /// The claims' `iss` (the team id).
        public var issuer: String
        /// The claims' `iat`.
        public var issuedAt: Int
        /// A fingerprint of the whole token (signature included): two signings differ here.
        public var fingerprint: String
    }

    /// Every distinct provider token sent so far, in the order first seen (needs `recordJWTs`).
    public func jwts() -> [SeenJWT] {
        guard let jwtLogPath, let text = try? String(contentsOfFile: jwtLogPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            let parts = fields.first?.split(separator: ".") ?? []
            guard fields.count == 2, parts.count == 2,
                let header = Self.decodeJSON(String(parts[0])), let claims = Self.decodeJSON(String(parts[1]))
            else { return nil }
            return SeenJWT(
                keyId: header["kid"] as? String ?? "", issuer: claims["iss"] as? String ?? "",
                issuedAt: (claims["iat"] as? NSNumber)?.intValue ?? 0, fingerprint: String(fields[1]))
        }
    }

    static func decodeJSON(_ base64URL: String) -> [String: Any]? {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
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
