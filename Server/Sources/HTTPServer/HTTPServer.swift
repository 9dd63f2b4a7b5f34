import CMHD
import ServerSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small HTTP/1.1 server on libmicrohttpd: internal thread pool with epoll, whole
/// requests in memory (bounded by ``HTTPServerConfiguration/maxBodyBytes``), a synchronous
/// handler called on the connection's thread.
public final class HTTPServer: Sendable {
    /// Handles one request; runs on a server thread and may block briefly.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The configuration.
    public let configuration: HTTPServerConfiguration
    let handler: Handler
    let tooLarge: HTTPResponse
    private let daemon: DaemonBox

    /// Starts serving. `tooLarge` answers bodies over the limit (413).
    public init(configuration: HTTPServerConfiguration, tooLarge: HTTPResponse, handler: @escaping Handler) throws {
        self.configuration = configuration
        self.handler = handler
        self.tooLarge = tooLarge
        self.daemon = DaemonBox()
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = cmhd_start(
            flags, configuration.host, UInt16(clamping: configuration.port),
            { cls, connection, url, method, _, uploadData, uploadSize, requestContext in
                guard let cls else { return .NO }
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                return server.access(connection, url, method, uploadData, uploadSize, requestContext)
            },
            context,
            { _, _, requestContext, _ in
                guard let requestContext, let pointer = requestContext.pointee else { return }
                Unmanaged<RequestContext>.fromOpaque(pointer).release()
                requestContext.pointee = nil
            },
            nil,
            UInt32(max(1, configuration.threads)), configuration.connectionMemoryLimit,
            UInt32(configuration.connectionTimeoutSeconds), UInt32(configuration.connectionLimit))
        guard let started else {
            throw HTTPServerError.cannotStart(host: configuration.host, port: configuration.port)
        }
        daemon.pointer.withLock { $0 = started }
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
        if let pointer { MHD_stop_daemon(pointer) }
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
