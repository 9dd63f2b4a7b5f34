#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPServer
import PushCore

/// Endpoints that other components of the process add to the service's HTTP API without
/// authentication — the delivery engine's `GET /healthz` and `GET /metrics`. Registered once
/// at start-up by `push-server`; looked up before the API's own routes.
public enum ExtraEndpoints {
    /// Produces a response: status, content type and body.
    public typealias Endpoint = @Sendable () -> (status: Int, contentType: String, body: Data)

    private static let registry = Locked<[String: Endpoint]>([:])

    /// Serves `method path` (e.g. `GET /metrics`) with `endpoint`.
    public static func register(_ method: String, _ path: String, _ endpoint: @escaping Endpoint) {
        registry.withLock { $0[method + " " + path] = endpoint }
    }

    /// The response for a request, if an endpoint is registered for it.
    static func response(method: String, path: String) -> HTTPResponse? {
        guard let endpoint = registry.withLock({ $0[method + " " + path] }) else { return nil }
        let (status, contentType, body) = endpoint()
        return HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: body)
    }
}
