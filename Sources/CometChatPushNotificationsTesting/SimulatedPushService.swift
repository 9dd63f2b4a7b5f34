import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// An in-memory push service behind the SDK's HTTP transport. It checks every request against
/// ``WireContract`` (``contractViolations``), keeps the tokens registered per auth token, and
/// answers with scripted failures when told to.
public final class SimulatedPushService: PNHTTPTransport, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.

    /// A request as the service received it.
    public struct Request: Sendable {
        /// The route, if the contract knows the call.
        public var match: WireContract.Match?
        /// The method.
        public var method: String
        /// The path after the base URL.
        public var path: String
        /// The headers.
        public var headers: [String: String]
        /// The JSON body, decoded.
        public var json: [String: String]
        /// The body's nested `data.text`, for messages.
        public var text: String?
        /// When the service received it (the simulated clock's time).
        public var at: Date
    }

    /// A token the service holds.
    public struct Registration: Sendable, Equatable {
        /// The token text.
        public var token: String
        /// The wire platform value.
        public var platform: String
        /// The provider id.
        public var providerId: String
    }

    /// A scripted answer.
    public enum Failure: Error, Sendable, Equatable {
        /// No answer at all (offline).
        case network
        /// An HTTP error with the §2 envelope.
        case status(Int, code: String)
    }

    private struct State {
        var requests: [Request] = []
        var violations: [String] = []
        var registrations: [String: [Registration]] = [:]
        var scripted: [WireContract.Route: [Failure]] = [:]
        var validAuthTokens: Set<String>?
    }

    private let state = PNLocked(State())
    private let clock: PNClock
    /// The path prefix of the base URL (`/v3.0` for the default host).
    public var basePath: String

    /// Creates a service.
    public init(clock: PNClock, basePath: String = "/v3.0") {
        self.clock = clock
        self.basePath = basePath
    }

    /// Every request received, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Requests of one route.
    public func requests(_ route: WireContract.Route) -> [Request] { requests.filter { $0.match?.route == route } }

    /// Everything the SDK sent that breaks the contract.
    public var contractViolations: [String] { state.withLock { $0.violations } }

    /// The tokens registered under an auth token.
    public func registrations(authToken: String) -> [Registration] { state.withLock { $0.registrations[authToken] ?? [] } }

    /// Every auth token that has tokens.
    public var authTokensWithRegistrations: [String] { state.withLock { $0.registrations.filter { !$0.value.isEmpty }.map(\.key) } }

    /// Only these auth tokens are accepted; others get `AUTH_ERR_AUTH_TOKEN_NOT_FOUND`.
    /// `nil` (the default) accepts any.
    public func acceptOnly(authTokens: Set<String>?) { state.withLock { $0.validAuthTokens = authTokens } }

    /// Revokes one auth token: later calls with it get `AUTH_ERR_AUTH_TOKEN_NOT_FOUND`.
    public func revoke(authToken: String) {
        state.withLock {
            var valid = $0.validAuthTokens ?? Set($0.registrations.keys)
            valid.remove(authToken)
            $0.validAuthTokens = valid
        }
    }

    /// The next calls of `route` fail with `failures`, in order.
    public func fail(_ route: WireContract.Route, with failures: [Failure]) {
        state.withLock { $0.scripted[route, default: []].append(contentsOf: failures) }
    }

    /// Forgets the requests received (registrations stay).
    public func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// Handles one request.
    public func send(_ request: PNHTTPRequest) async throws -> PNHTTPResponse {
        var path = request.url.path
        if !basePath.isEmpty, path.hasPrefix(basePath) { path.removeFirst(basePath.count) }
        let match = WireContract.match(method: request.method, path: path)
        let problems = WireContract.violations(method: request.method, path: path, headers: request.headers, body: request.body)
        var json: [String: String] = [:]
        var text: String?
        if let body = request.body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            for (key, value) in object { if let value = value as? String { json[key] = value } }
            text = (object["data"] as? [String: Any])?["text"] as? String
        }
        let received = Request(
            match: match, method: request.method, path: path, headers: request.headers, json: json, text: text,
            at: clock.now())
        let authToken = request.headers["authToken"] ?? ""

        let outcome = state.withLock { state -> Result<PNHTTPResponse, Failure> in
            state.requests.append(received)
            state.violations.append(contentsOf: problems.map { "\(request.method) \(path): \($0)" })
            if let route = match?.route, var queue = state.scripted[route], !queue.isEmpty {
                let failure = queue.removeFirst()
                state.scripted[route] = queue
                return .failure(failure)
            }
            if let valid = state.validAuthTokens, !valid.contains(authToken) {
                return .failure(.status(401, code: "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"))
            }
            guard problems.isEmpty, let match else { return .failure(.status(400, code: "ERR_BAD_REQUEST")) }
            switch match.route {
            case .registerToken:
                let registration = Registration(
                    token: json["fcmToken"] ?? "", platform: json["platform"] ?? "", providerId: json["providerId"] ?? "")
                for key in state.registrations.keys { state.registrations[key]?.removeAll { $0.token == registration.token } }
                state.registrations[authToken, default: []].append(registration)
                return .success(
                    Self.ok(["pushToken": registration.token, "platform": registration.platform, "providerId": registration.providerId]))
            case .unregisterTokens:
                state.registrations[authToken] = nil
                return .success(Self.ok([:]))
            default:
                return .success(Self.ok([:]))
            }
        }
        switch outcome {
        case .success(let response): return response
        case .failure(.network): throw PNTransportError("The network connection was lost.")
        case .failure(.status(let status, let code)):
            let body = try JSONSerialization.data(withJSONObject: [
                "error": ["code": code, "message": "Simulated \(code).", "details": [:]]
            ])
            return PNHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    private static func ok(_ data: [String: String]) -> PNHTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: ["data": data])) ?? Data()
        return PNHTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
    }
}
