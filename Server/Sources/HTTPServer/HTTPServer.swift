import CMHD
import ServerSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small HTTP/1.1 server on libmicrohttpd: internal thread pool with epoll, whole
/// requests in memory (bounded by ``HTTPServerConfiguration/maxBodyBytes``), a synchronous
/// handler called on the connection's thread. One address holds at most
/// ``HTTPServerConfiguration/connectionsPerAddress`` connections, and each request must arrive
/// within ``HTTPServerConfiguration/requestTimeoutSeconds`` (``ConnectionGuard``).
public final class HTTPServer: Sendable {
    /// Handles one request; runs on a server thread and may block briefly.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The configuration.
    public let configuration: HTTPServerConfiguration
    let handler: Handler
    let tooLarge: HTTPResponse
    let connections: ConnectionGuard
    private let daemon: DaemonBox

    /// Starts serving. `tooLarge` answers bodies over the limit (413).
    public init(configuration: HTTPServerConfiguration, tooLarge: HTTPResponse, handler: @escaping Handler) throws {
        self.configuration = configuration
        self.handler = handler
        self.tooLarge = tooLarge
        self.daemon = DaemonBox()
        connections = ConnectionGuard(configuration: configuration)
        effectiveConnectionLimit = Self.connectionLimit(configuration.connectionLimit, openFiles: OpenFiles.current)
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = cmhd_start(
            flags, configuration.host, UInt16(clamping: configuration.port),
            { cls, address, _ in
                guard let cls else { return .NO }
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                guard let text = HTTPServer.text(of: address) else { return .NO }
                return server.connections.admits(text) ? .YES : .NO
            },
            context,
            { cls, connection, url, method, _, uploadData, uploadSize, requestContext in
                guard let cls else { return .NO }
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                return server.access(connection, url, method, uploadData, uploadSize, requestContext)
            },
            context,
            { cls, connection, requestContext, _ in
                if let requestContext, let pointer = requestContext.pointee {
                    Unmanaged<RequestContext>.fromOpaque(pointer).release()
                    requestContext.pointee = nil
                }
                // The response is out (or the request ended): a kept-alive connection's clock
                // for its next request starts now.
                guard let cls, let connection, let state = cmhd_connection_context(connection) else { return }
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                server.connections.responseSent(Unmanaged<ConnectionGuard.Connection>.fromOpaque(state).takeUnretainedValue())
            },
            context,
            { cls, connection, socketContext, event in
                guard let cls, let connection, let socketContext else { return }
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                switch event {
                case .CONNECTION_NOTIFY_STARTED:
                    let address = HTTPServer.addressText { cmhd_connection_address(connection, $0, $1) } ?? ""
                    let state = server.connections.opened(address: address, fd: cmhd_connection_fd(connection))
                    socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
                case .CONNECTION_NOTIFY_CLOSED:
                    guard let pointer = socketContext.pointee else { return }
                    socketContext.pointee = nil
                    server.connections.closed(Unmanaged<ConnectionGuard.Connection>.fromOpaque(pointer).takeRetainedValue())
                default:
                    break
                }
            },
            context,
            UInt32(max(1, configuration.threads)), configuration.connectionMemoryLimit,
            UInt32(configuration.connectionTimeoutSeconds), UInt32(effectiveConnectionLimit),
            UInt32(clamping: configuration.listenBacklog))
        guard let started else {
            throw HTTPServerError.cannotStart(host: configuration.host, port: configuration.port)
        }
        daemon.pointer.withLock { $0 = started }
        connections.start()
    }

    /// The total connection limit in effect: ``HTTPServerConfiguration/connectionLimit``, or less
    /// when the process may not open that many files (a socket is a file; 256 descriptors are
    /// kept for the store, outbound connections and logs).
    public let effectiveConnectionLimit: Int

    /// The connection limit the server serves with: `configured`, but at most the open-file
    /// limit less 256 descriptors for everything else (at least 16).
    public static func connectionLimit(_ configured: Int, openFiles: Int?) -> Int {
        guard let openFiles else { return configured }
        return max(16, min(configured, openFiles - 256))
    }

    /// Connections refused by the per-address limit since start.
    public var refusedConnections: Int { connections.counts.refused }

    /// Connections closed because their request did not arrive within
    /// ``HTTPServerConfiguration/requestTimeoutSeconds``, since start.
    public var expiredConnections: Int { connections.counts.expired }

    static func text(of address: UnsafePointer<sockaddr>?) -> String? {
        addressText { cmhd_format_address(address, $0, $1) }
    }

    /// The text a C formatter writes into a buffer (nil when it fails).
    static func addressText(_ format: (UnsafeMutablePointer<CChar>, socklen_t) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written = buffer.withUnsafeMutableBufferPointer { format($0.baseAddress!, socklen_t($0.count - 1)) }
        guard written == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        stop()
    }

    /// The port the server listens on.
    public var port: Int {
        daemon.pointer.withLock { $0.map { Int(cmhd_bound_port($0)) } ?? 0 }
    }

    /// Stops accepting and closes connections; waits for handlers to return.
    public func stop() {
        let pointer = daemon.pointer.withLock { current -> OpaquePointer? in
            defer { current = nil }
            return current
        }
        if let pointer {
            MHD_stop_daemon(pointer)
            connections.stop()
        }
    }
}

/// Why the server could not start.
public enum HTTPServerError: Error, Sendable {
    /// The address does not parse, or the port is taken.
    case cannotStart(host: String, port: Int)
}

/// Holds the daemon pointer behind a lock.
final class DaemonBox: Sendable {
    let pointer = Locked<OpaquePointer?>(nil)
}
