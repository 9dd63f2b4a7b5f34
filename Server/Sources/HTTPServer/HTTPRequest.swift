#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A complete HTTP request as the server hands it to the handler.
public struct HTTPRequest: Sendable {
    /// The method in upper case (`GET`, `POST`…).
    public var method: String
    /// The path, percent-decoded, without the query string.
    public var path: String
    /// Query arguments.
    public var query: [String: String]
    /// Headers with lower-cased names (the last value wins for repeated names).
    public var headers: [String: String]
    /// The body (empty when there was none).
    public var body: Data
    /// The client's address: the peer's, or, when the peer is a trusted reverse proxy
    /// (``HTTPServerConfiguration/trustedProxies``), the nearest address its `X-Forwarded-For`
    /// names that is not itself a trusted proxy. Empty when unknown.
    public var clientAddress: String

    /// Creates a request.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: Data = Data(),
        clientAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }

    /// The value of a header, looked up case-insensitively.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
