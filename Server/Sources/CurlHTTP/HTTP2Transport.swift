/// What a client that sends ``OutboundRequest``s over HTTP/2 offers: the seam APNs's client holds,
/// so that it can send through libcurl (``HTTP2Client``) or through the HTTP/2 client of our own
/// (NativeHTTP2's `NativeHTTP2Client`).
public protocol HTTP2Transport: AnyObject, Sendable {
    /// Sends `request`; `completion` runs on the client's loop thread with the answer or a
    /// transport error (keep it short).
    func send(
        _ request: OutboundRequest,
        completion: @escaping @Sendable (Result<OutboundResponse, HTTPTransportError>) -> Void)

    /// Requests submitted and not yet answered.
    var inFlight: Int { get }

    /// Whether the last request was answered: its connection is up (false before the first
    /// answer and after a transport failure).
    var isAnswering: Bool { get }

    /// Stops the client; requests still in flight fail with a transport error.
    func shutdown()
}

extension HTTP2Client: HTTP2Transport {}
