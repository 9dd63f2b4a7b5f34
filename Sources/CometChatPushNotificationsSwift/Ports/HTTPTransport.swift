import Foundation

/// An HTTP request in the SDK's own terms.
public struct PNHTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, `PUT` or `DELETE`.
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Header fields, by their exact names.
    public var headers: [String: String]
    /// The body, or `nil` for none.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// An HTTP response in the SDK's own terms.
public struct PNHTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A transport failure: no HTTP answer at all (offline, timeout, TLS, DNS).
public struct PNTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for logs.
    public var reason: String
    /// Creates a transport error.
    public init(_ reason: String) { self.reason = reason }
    /// The reason.
    public var description: String { reason }
}

/// Sends HTTP requests. Implemented on `URLSession` by the SDK; tests use a fake that checks
/// every request against the wire contract.
public protocol PNHTTPTransport: Sendable {
    /// Sends `request` and returns the answer, or throws ``PNTransportError`` when no answer came.
    func send(_ request: PNHTTPRequest) async throws -> PNHTTPResponse
}
