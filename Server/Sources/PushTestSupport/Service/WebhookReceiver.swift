import Foundation
import HTTPServer
import ServerSupport

/// A webhook receiver on 127.0.0.1 that fails the first `failures` deliveries with 500 and
/// records every delivery.
public final class WebhookReceiver: Sendable {
    /// One delivery as it arrived.
    public struct Delivery: Sendable {
        /// The body.
        public var body: Data
        /// The headers, names in lower case.
        public var headers: [String: String]
        /// What the receiver answered.
        public var status: Int
        /// When it arrived.
        public var at: Date
    }

    private let deliveries = Locked<[Delivery]>([])
    /// The receiver's server.
    public let server: HTTPServer

    /// Starts a receiver that answers 500 to the first `failures` deliveries, then 200.
    public init(failures: Int) throws {
        let deliveries = self.deliveries
        server = try HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threads: 1), tooLarge: HTTPResponse(status: 413)
        ) { request in
            deliveries.withLock { list in
                let status = list.count < failures ? 500 : 200
                list.append(Delivery(body: request.body, headers: request.headers, status: status, at: Date()))
                return HTTPResponse(status: status)
            }
        }
    }

    /// Stops the server on the thread that lets the receiver go (the test's). Left to the
    /// server's own deinit, the stop could run on the server's thread — when a post still being
    /// answered held the last reference — and libmicrohttpd aborts the process when a thread
    /// joins itself ("Failed to join a thread", seen on main under load).
    deinit {
        server.stop()
    }

    /// `http://127.0.0.1:<port>/hook`.
    public var url: String { "http://127.0.0.1:\(server.port)/hook" }
    /// Every delivery, in order.
    public var all: [Delivery] { deliveries.withLock { $0 } }
    /// The deliveries answered 200.
    public var succeeded: [Delivery] { all.filter { $0.status == 200 } }
}
