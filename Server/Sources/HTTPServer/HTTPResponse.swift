#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP response.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Headers, in order.
    public var headers: [(String, String)]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: Int, _ body: Data) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: body)
    }
}
