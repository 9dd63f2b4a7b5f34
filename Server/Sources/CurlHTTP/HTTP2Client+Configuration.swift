import CCurl
import ServerSupport

extension HTTP2Client {
    /// Whether the client frees each request's upload buffer once its body was sent (saves
    /// ~16 KB per request awaiting its answer). It relies on libcurl 7.88's internals, so it
    /// is done only when a libcurl of this version (0xXXYYZZ) runs: 7.88.x.
    public static func uploadBufferReleaseApplies(versionNumber: UInt32) -> Bool {
        versionNumber >> 8 == 0x0758
    }

    /// The running libcurl's version (0xXXYYZZ).
    public static var libcurlVersionNumber: UInt32 { ccurl_version_number() }

    /// How an `HTTP2Client` connects.
    public struct Configuration: Sendable {
        /// A PEM file of CA certificates to trust instead of the system store (test CAs).
        public var caFile: String?
        /// Most connections opened to one host; further requests wait for a free stream.
        public var maxConnectionsPerHost: Int
        /// Most concurrent streams per connection; the server's own limit still applies.
        public var maxConcurrentStreams: Int
        /// Send an HTTP/2 PING on busy connections at this interval (0 turns pings off).
        public var pingIntervalMilliseconds: Int
        /// How long new requests wait after failed connection attempts: the delay after the
        /// n-th failure in a row is `reconnect.delay(attempt: n)` (default 50 ms doubling to 5 s,
        /// exact).
        public var reconnect: RetryPolicy
        /// Speak HTTP/2 without TLS (h2c, prior knowledge). For local tools only.
        public var cleartext: Bool
        /// Keep a single request in flight until one got an HTTP answer other than 403
        /// (APNs allows one stream per connection until a request with a valid token
        /// succeeded). Applies again after a connection failure.
        public var singleStreamUntilAuthenticated: Bool
        /// The largest response body kept; a longer one ends the request with an error
        /// (webhook URLs are app-controlled: a huge answer must not grow memory without bound).
        public var maxResponseBytes: Int = 1 << 20
        /// Let a new request wait for a connection being set up to the same host, to share it
        /// if that connection turns out to multiplex (HTTP/2), instead of opening another
        /// (libcurl's `CURLOPT_PIPEWAIT`; default true). Off for HTTP/1.1 peers that may be slow
        /// to answer (webhooks): libcurl cannot tell an HTTP/1.1 connection from an HTTP/2 one
        /// before its first answer, so behind a request that hangs every other request to the
        /// host would wait too.
        public var waitsForMultiplexing = true

        /// Creates a configuration.
        public init(
            caFile: String? = nil, maxConnectionsPerHost: Int = 2, maxConcurrentStreams: Int = 1000,
            pingIntervalMilliseconds: Int = 30_000, reconnect: RetryPolicy = .exact(from: 0.05, upTo: 5), cleartext: Bool = false,
            singleStreamUntilAuthenticated: Bool = false
        ) {
            self.caFile = caFile
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxConcurrentStreams = maxConcurrentStreams
            self.pingIntervalMilliseconds = pingIntervalMilliseconds
            self.reconnect = reconnect
            self.cleartext = cleartext
            self.singleStreamUntilAuthenticated = singleStreamUntilAuthenticated
        }
    }
}
