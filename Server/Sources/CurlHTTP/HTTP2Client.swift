import CCurl
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// An HTTP/2 client on libcurl's multi interface: one thread drives many concurrent
/// streams multiplexed over a few TLS connections to each host.
///
/// The connections of one client form a pool: libcurl keeps them open, puts new requests
/// on an existing connection while it has free streams (honouring the server's
/// `SETTINGS_MAX_CONCURRENT_STREAMS`, so a server that allows one stream until it has
/// seen a valid request gets one), opens up to `maxConnectionsPerHost` connections, pings
/// busy connections, and stops using a connection after GOAWAY. After a failed connection
/// attempt new requests wait with an exponential back-off before the next attempt.
///
/// Callbacks run on the client's loop thread: keep them short.
public final class HTTP2Client: Sendable {
    private let loop: CurlLoop

    /// libcurl failures a test can force (never set in the service).
    struct Faults {
        /// `curl_easy_init` returns NULL.
        var easyInitFails = false
        /// `curl_multi_add_handle` refuses every transfer.
        var addHandleFails = false
    }

    /// Creates a client and starts its loop thread.
    public convenience init(configuration: Configuration = Configuration(), name: String = "http2") {
        self.init(configuration: configuration, name: name, faults: Faults())
    }

    /// Creates a client whose libcurl calls fail as `faults` says (tests).
    init(configuration: Configuration, name: String, faults: Faults) {
        CurlGlobal.initialize()
        loop = CurlLoop(configuration: configuration, faults: faults)
        let loop = self.loop
        ServerThread.start(name: name) { loop.run() }
    }

    deinit { loop.stop() }

    /// Sends `request`; `completion` runs on the loop thread with the answer or a transport error.
    public func send(
        _ request: OutboundRequest,
        completion: @escaping @Sendable (Result<OutboundResponse, HTTPTransportError>) -> Void
    ) {
        loop.submit(Transfer(request: request, completion: completion))
    }

    /// Sends `request` and waits for its answer.
    public func send(_ request: OutboundRequest) async -> Result<OutboundResponse, HTTPTransportError> {
        await withCheckedContinuation { continuation in
            send(request) { continuation.resume(returning: $0) }
        }
    }

    /// Requests submitted and not yet answered.
    public var inFlight: Int { loop.inFlight.load(ordering: .relaxed) }

    /// Whether the last request was answered: its connection is up (false before the first
    /// answer and after a transport failure).
    public var isAnswering: Bool { loop.answered.load(ordering: .relaxed) }

    /// Stops the loop; requests still in flight fail with a transport error.
    public func shutdown() { loop.stop() }
}

/// Calls `curl_global_init` once per process.
enum CurlGlobal {
    static let once: Bool = { curl_global_init(ccurl_global_default()) == CURLE_OK }()
    static func initialize() { _ = once }
}
