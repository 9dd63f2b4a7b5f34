import CurlHTTP
import ServerSupport

/// An HTTP/2 client of our own on libnghttp2 and OpenSSL's libssl, for one origin (APNs): one
/// TLS connection at a time, driven by one event-loop thread.
///
/// Requests are submitted from any thread into a lock-protected queue; the loop thread is woken
/// through an eventfd only while it sleeps in `poll`. Each turn of the loop reads what arrived,
/// opens as many streams as the connection allows, drains every frame nghttp2 has to send into
/// one buffer and writes it with one `SSL_write`. A fresh connection carries one stream until a
/// request was answered with anything but 403 (APNs allows one stream until a request with a
/// valid provider token succeeded), then up to the server's `SETTINGS_MAX_CONCURRENT_STREAMS`.
/// After GOAWAY the streams the server did not process are sent again on a new connection; the
/// old one is drained. Each request ends at its deadline (`timeoutMilliseconds`). Failed
/// connection attempts back off on ``Configuration/reconnect``. See
/// `docs/design/native-http2-client.md`.
///
/// Completions run on the loop thread: keep them short.
public final class NativeHTTP2Client: HTTP2Transport {
    private let loop: NativeLoop

    /// How a ``NativeHTTP2Client`` connects.
    public struct Configuration: Sendable {
        /// A PEM file of CA certificates to trust instead of the system store (test CAs).
        public var caFile: String?
        /// Most concurrent streams on the connection; the server's own limit still applies.
        public var maxConcurrentStreams: Int
        /// Send an HTTP/2 PING when nothing arrived on the connection for this long (0: never);
        /// a PING unanswered for as long again (at least 5 s) ends the connection.
        public var pingIntervalMilliseconds: Int
        /// How long new requests wait after failed connection attempts: the delay after the
        /// n-th failure in a row is `reconnect.delay(attempt: n)`.
        public var reconnect: RetryPolicy
        /// One stream until a request got an HTTP answer other than 403 on the connection
        /// (APNs's rule for a new connection).
        public var singleStreamUntilAuthenticated: Bool
        /// The largest response body kept; a longer one fails its request.
        public var maxResponseBytes: Int
        /// How long a connection attempt (TCP and TLS) may take.
        public var connectTimeoutMilliseconds: Int
        /// How often a request whose stream the server refused (GOAWAY, `REFUSED_STREAM`: not
        /// processed) is sent again by the client before it fails.
        public var maxRefusedResends: Int

        /// Creates a configuration.
        public init(
            caFile: String? = nil, maxConcurrentStreams: Int = 1000, pingIntervalMilliseconds: Int = 30_000,
            reconnect: RetryPolicy = .exact(from: 0.05, upTo: 5), singleStreamUntilAuthenticated: Bool = false,
            maxResponseBytes: Int = 1 << 20, connectTimeoutMilliseconds: Int = 10_000, maxRefusedResends: Int = 3
        ) {
            self.caFile = caFile
            self.maxConcurrentStreams = maxConcurrentStreams
            self.pingIntervalMilliseconds = pingIntervalMilliseconds
            self.reconnect = reconnect
            self.singleStreamUntilAuthenticated = singleStreamUntilAuthenticated
            self.maxResponseBytes = maxResponseBytes
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.maxRefusedResends = maxRefusedResends
        }

        /// The fields of a libcurl client's configuration that apply here (CA file, streams,
        /// pings, back-off, the single-stream gate, the response limit).
        public init(_ curl: HTTP2Client.Configuration) {
            self.init(
                caFile: curl.caFile, maxConcurrentStreams: curl.maxConcurrentStreams,
                pingIntervalMilliseconds: curl.pingIntervalMilliseconds, reconnect: curl.reconnect,
                singleStreamUntilAuthenticated: curl.singleStreamUntilAuthenticated, maxResponseBytes: curl.maxResponseBytes)
        }
    }

    /// A URL the client cannot send to.
    public struct OriginError: Error, CustomStringConvertible {
        /// Why.
        public var description: String
    }

    /// Creates a client of `baseURL` (`https://host[:port]`; every request's URL must start
    /// with it) and starts its loop thread, named `name`. Throws when the URL is not an https
    /// origin or the TLS context cannot be made (a CA file that does not load).
    public init(baseURL: String, configuration: Configuration = Configuration(), name: String = "h2") throws {
        let origin = try Origin(baseURL)
        loop = try NativeLoop(origin: origin, configuration: configuration)
        let loop = self.loop
        ServerThread.start(name: name) { loop.run() }
    }

    deinit { loop.stop() }

    /// Sends `request` (its URL must start with the client's base URL); `completion` runs on
    /// the loop thread with the answer or a transport error.
    public func send(
        _ request: OutboundRequest,
        completion: @escaping @Sendable (Result<OutboundResponse, HTTPTransportError>) -> Void
    ) {
        loop.submit(request, completion: completion)
    }

    /// Sends `request` and waits for its answer.
    public func send(_ request: OutboundRequest) async -> Result<OutboundResponse, HTTPTransportError> {
        await withCheckedContinuation { continuation in
            send(request) { continuation.resume(returning: $0) }
        }
    }

    /// Requests submitted and not yet answered.
    public var inFlight: Int { loop.inFlight.load(ordering: .relaxed) }

    /// Whether the last request was answered: the connection is up (false before the first
    /// answer and after a transport failure).
    public var isAnswering: Bool { loop.answered.load(ordering: .relaxed) }

    /// Connections opened so far (attempts included): tests see reconnects and back-off.
    public var connectionsOpened: Int { loop.connectionsOpened.load(ordering: .relaxed) }

    /// Stops the loop; requests still in flight fail with a transport error.
    public func shutdown() { loop.stop() }
}

/// The scheme, host and port requests go to, parsed once.
struct Origin: Sendable {
    /// `https://host[:port]` as given: a request URL starts with it.
    let prefix: String
    /// The host name or address (IPv6 without brackets).
    let host: String
    let port: Int
    /// `:authority`: host and port as in the URL.
    let authority: String

    init(_ baseURL: String) throws {
        var text = Substring(baseURL)
        guard text.hasPrefix("https://") else { throw NativeHTTP2Client.OriginError(description: "not an https URL: \(baseURL)") }
        text = text.dropFirst("https://".count)
        if let slash = text.firstIndex(of: "/") {
            guard text[slash...].allSatisfy({ $0 == "/" }) else {
                throw NativeHTTP2Client.OriginError(description: "a base URL with a path: \(baseURL)")
            }
            text = text[..<slash]
        }
        authority = String(text)
        prefix = "https://" + authority
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw NativeHTTP2Client.OriginError(description: "bad host: \(baseURL)") }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            port = rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? -1 : 443
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            port = Int(text[text.index(after: colon)...]) ?? -1
        } else {
            host = String(text)
            port = 443
        }
        guard !host.isEmpty, (1...65535).contains(port) else {
            throw NativeHTTP2Client.OriginError(description: "bad host or port: \(baseURL)")
        }
    }
}
