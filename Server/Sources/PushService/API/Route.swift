#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPServer

/// Who may call a route.
enum RouteAuth {
    /// Anyone (health check).
    case none
    /// `appid` + `authToken` headers (the SDK).
    case client
    /// `apikey` header (service-wide administration).
    case admin
    /// `apikey` + `appid` headers (administration of one app).
    case adminApp
}

/// One endpoint: method, path pattern (`:name` segments capture), auth, handler. The handler's
/// value is the `data` of a 200 answer, or a whole ``HTTPResponse`` to send as it is.
struct Route: Sendable {
    let method: String
    let pattern: [String]
    let auth: RouteAuth
    let handler: @Sendable (Call) throws -> Any

    init(_ method: String, _ pattern: String, _ auth: RouteAuth, _ handler: @escaping @Sendable (Call) throws -> Any) {
        self.method = method
        self.pattern = pattern.split(separator: "/").map(String.init)
        self.auth = auth
        self.handler = handler
    }

    /// How many segments are parameters (fewer wins when several routes fit a path).
    var parameterCount: Int {
        pattern.filter { $0.hasPrefix(":") }.count
    }

    /// `METHOD /path/{name}`: the route as OpenAPI writes it.
    var signature: String {
        method + " /" + pattern.map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : $0 }.joined(separator: "/")
    }

    /// The captured parameters when `segments` fit the pattern.
    func match(_ segments: [String]) -> [String: String]? {
        guard segments.count == pattern.count else { return nil }
        var parameters: [String: String] = [:]
        for (part, segment) in zip(pattern, segments) {
            if part.hasPrefix(":") {
                guard !segment.isEmpty else { return nil }
                parameters[String(part.dropFirst())] = segment
            } else if part != segment {
                return nil
            }
        }
        return parameters
    }
}

/// A request on its way through a route, with what authentication found.
struct Call {
    let request: HTTPRequest
    let parameters: [String: String]
    /// The app (client and per-app admin routes).
    let app: AppContext?
    /// The session (client routes).
    let session: Session?

    func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    func body() throws(APIError) -> JSONObject {
        try JSON.object(from: request.body)
    }

    var appId: String { app?.id ?? "" }
}

/// The app a call is for.
struct AppContext {
    let id: String
}

/// The user session behind a client call.
struct Session {
    let appId: String
    let uid: String
    let authTokenHash: Data
    let authTokenHint: String
}
