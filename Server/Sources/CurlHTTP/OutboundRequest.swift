/// One request the service sends through `HTTP2Client` (to APNs, FCM, a webhook receiver): a
/// POST (or GET when `body` is nil) with headers. The requests the service receives are
/// HTTPServer's `HTTPRequest`.
public struct OutboundRequest: Sendable {
    /// The absolute URL, e.g. `https://api.push.apple.com/3/device/<token>`.
    public var url: String
    /// Request headers, in order. Names are sent as given (HTTP/2 lowercases them).
    public var headers: [(name: String, value: String)]
    /// The request body; nil sends a GET.
    public var body: [UInt8]?
    /// Give up after this many milliseconds (connection set-up included).
    public var timeoutMilliseconds: Int
    /// Where the request may connect, for URLs the operator did not choose (webhooks, a
    /// service account's `token_uri`): checked before it starts and at every connection (see
    /// ``DestinationPolicy``); a refusal fails it with an ``HTTPTransportError`` whose
    /// `isDestinationRefused` is true. Nil (operator-configured hosts: APNs, `--fcm-url`): any
    /// destination.
    public var destinationPolicy: DestinationPolicy?

    /// Creates a request.
    public init(
        url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        timeoutMilliseconds: Int = 30_000, destinationPolicy: DestinationPolicy? = nil
    ) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
        self.destinationPolicy = destinationPolicy
    }
}

/// The answer to an ``OutboundRequest``.
public struct OutboundResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers with lowercased names (last value wins).
    public var headers: [String: String]
    /// The response body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A request that got no HTTP answer.
public struct HTTPTransportError: Error, Sendable, CustomStringConvertible {
    /// libcurl's result code (`CURLcode`); the HTTP/2 client of our own uses the same numbers
    /// for the same failures (7 no connection, 28 deadline, 35 TLS handshake, 56 connection lost,
    /// 92 stream reset).
    public var code: Int
    /// libcurl's description of it.
    public var message: String
    /// The client that failed: `curl` (``HTTP2Client``) or `h2` (NativeHTTP2's client).
    public var client: String
    /// Whether the failure happened before the request could reach the server (connect,
    /// TLS handshake), so it is safe to send again on another connection.
    public var isConnectFailure: Bool
    /// Whether the request's ``OutboundRequest/destinationPolicy`` refused where it would have gone;
    /// `message` then says why ("destination refused: 127.0.0.1 is loopback").
    public var isDestinationRefused: Bool

    /// Creates an error.
    public init(code: Int, message: String, isConnectFailure: Bool, isDestinationRefused: Bool = false, client: String = "curl") {
        self.code = code
        self.client = client
        self.message = message
        self.isConnectFailure = isConnectFailure
        self.isDestinationRefused = isDestinationRefused
    }

    /// "curl error <code>: <message>" (or "h2 error …"), or the message alone for a refused destination.
    public var description: String { isDestinationRefused ? message : "\(client) error \(code): \(message)" }
}
