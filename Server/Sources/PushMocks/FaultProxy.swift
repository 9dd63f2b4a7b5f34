import Foundation

/// `Mocks/fault_proxy.py` in front of a mock: forwards connections, or fails them on demand
/// (accept and close, so the TLS handshake fails; or refuse them), and counts the TCP
/// connections it accepted, so a test sees whether a client reconnects with back-off.
public final class FaultProxy: @unchecked Sendable {
    // @unchecked: `process` is set in init and only signalled afterwards.
    /// What the proxy does with connections.
    public enum Mode: String, Sendable {
        /// Pass them to the mock.
        case forward
        /// Accept and close at once (the TLS handshake fails).
        case reset
        /// Refuse them (nothing listens).
        case refuse
        /// Keep them, and the open ones, but drop every byte both ways (a connection gone dead
        /// without a FIN or RST).
        case stall
    }

    private let process = ChildProcess()
    private let control: String
    /// The port clients connect to.
    public let port: Int
    /// The proxy's base URL.
    public var baseURL: String { "https://127.0.0.1:\(port)" }

    /// Starts a proxy to `targetPort` on 127.0.0.1, in `mode`.
    public init(targetPort: Int, mode: Mode = .forward) throws {
        control = NSTemporaryDirectory() + "fault-proxy-\(UUID().uuidString)"
        try Data(mode.rawValue.utf8).write(to: URL(fileURLWithPath: control))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", MockPaths.mocks + "/fault_proxy.py", "--target-port", String(targetPort), "--control", control]
        port = try MockProcess.startAndReadPort(process, name: "fault_proxy.py")
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: control)
        try? FileManager.default.removeItem(atPath: control + ".log")
    }

    /// Switches what the proxy does with new connections (existing ones are kept; `stall` stops
    /// their bytes too).
    public func set(_ mode: Mode) throws {
        try Data(mode.rawValue.utf8).write(to: URL(fileURLWithPath: control), options: .atomic)
    }

    /// TCP connections accepted so far.
    public var accepted: Int {
        guard let text = try? String(contentsOfFile: control + ".log", encoding: .utf8) else { return 0 }
        return text.split(separator: "\n").count
    }
}
