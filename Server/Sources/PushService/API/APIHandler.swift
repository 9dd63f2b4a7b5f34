import PushCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPServer
import ServerSupport
import PushStore

/// Routes requests, authenticates them, rate-limits sessions, and turns every failure into
/// the error envelope. Never throws, never logs a secret.
final class APIHandler: Sendable {
    let service: ServiceContext
    private let routes: [Route]

    init(service: ServiceContext) {
        self.service = service
        routes =
            ClientAPI(service: service).routes + AdminAPI(service: service).routes
            + [
                Route("GET", "health", .none) { _ in ["status": "ok"] },
                Route("GET", "openapi.json", .none) { _ in HTTPResponse.json(200, OpenAPIDocument.data) },
            ]
    }

    /// Every route as `METHOD /path/{parameter}`, in the router's order (the OpenAPI test
    /// compares these with `Server/openapi.json`).
    var routeList: [String] {
        routes.map(\.signature)
    }

    /// Answers the request and writes its access line, `METHOD /path status Nms client=…`: at
    /// info, or at debug for the probes a load balancer and Prometheus send every few seconds
    /// (``isProbe(_:)``).
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let started = Date()
        let response = route(request)
        service.logger.log(
            Self.isProbe(request) ? .debug : .info,
            "\(request.method) \(Self.redactedPath(request.path)) \(response.status) \(Int(Date().timeIntervalSince(started) * 1000))ms client=\(request.clientAddress)"
        )
        return response
    }

    /// `GET /healthz`, `/health` and `/metrics`: polled, not used.
    static func isProbe(_ request: HTTPRequest) -> Bool {
        request.method == "GET" && (request.path == "/healthz" || request.path == "/health" || request.path == "/metrics")
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        if request.method == "GET", let response = operatorEndpoint(request.path) { return response }
        if let page = Dashboard.response(method: request.method, path: request.path) { return page }
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        // As in OpenAPI, a concrete path wins over a templated one: `/providers/apns` is the
        // APNs provider route for every method, never `/providers/{providerId}`.
        let matches = routes.compactMap { route in route.match(segments).map { (route, $0) } }
        let fewestParameters = matches.map { $0.0.parameterCount }.min() ?? 0
        var allowed: [String] = []
        for (route, parameters) in matches where route.parameterCount == fewestParameters {
            guard route.method == request.method else {
                if !allowed.contains(route.method) { allowed.append(route.method) }
                continue
            }
            do {
                let call = try authenticate(request, route: route, parameters: parameters)
                let data = try route.handler(call)
                if let response = data as? HTTPResponse { return response }
                return .json(200, JSON.encode(["data": data]))
            } catch let error as APIError {
                return error.response
            } catch StoreError.conflict {
                return APIError.alreadyExists.response
            } catch StoreError.notFound {
                return APIError.doesNotExist.response
            } catch {
                service.logger.error("request failed: \(type(of: error))")
                return APIError.operationFailed.response
            }
        }
        guard !allowed.isEmpty else { return APIError.notFound.response }
        var response = APIError.methodNotAllowed.response
        response.headers.append(("Allow", allowed.joined(separator: ", ")))
        return response
    }

    /// `GET /healthz` (and its alias `/health`): the engine's state and the outbox depth as
    /// JSON, 200 when ok, 503 when degraded; `GET /metrics`: Prometheus text. No auth.
    private func operatorEndpoint(_ path: String) -> HTTPResponse? {
        guard path == "/healthz" || path == "/health" || path == "/metrics",
            let delivery = service.delivery.withLock({ $0 })
        else { return nil }
        if path == "/metrics" {
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                body: Data(
                    (delivery.metricsText() + RetentionWorker.prometheusText(service.retentionDeleted.withLock { $0 })
                        + connectionMetrics()).utf8))
        }
        let body = delivery.health()
        let data = (try? JSONCodec.encodeData(body)) ?? Data("{}".utf8)
        return HTTPResponse(
            status: body["status"] as? String == "ok" ? 200 : 503, headers: [("Content-Type", "application/json")], body: data)
    }

    /// The HTTP server's refusals (`/metrics`).
    private func connectionMetrics() -> String {
        guard let server = service.httpServer.withLock({ $0 }) else { return "" }
        return """
            # HELP push_http_connections_refused_total Connections refused: their address held --max-connections-per-address.
            # TYPE push_http_connections_refused_total counter
            push_http_connections_refused_total \(server.refusedConnections)
            # HELP push_http_requests_timed_out_total Connections closed: their request did not arrive within --request-timeout.
            # TYPE push_http_requests_timed_out_total counter
            push_http_requests_timed_out_total \(server.expiredConnections)

            """
    }

    private func authenticate(_ request: HTTPRequest, route: Route, parameters: [String: String]) throws -> Call {
        switch route.auth {
        case .none:
            return Call(request: request, parameters: parameters, app: nil, session: nil)
        case .admin:
            try checkAPIKey(request)
            return Call(request: request, parameters: parameters, app: nil, session: nil)
        case .adminApp:
            try checkAPIKey(request)
            let app = try requireApp(request)
            return Call(request: request, parameters: parameters, app: app, session: nil)
        case .client:
            let app = try requireApp(request)
            guard let token = request.header("authtoken"), !token.isEmpty else { throw APIError.emptyAuthToken }
            guard token.utf8.count <= 512 else { throw APIError.authTokenNotFound }
            let hash = Crypto.sha256(token)
            guard let record = try service.store.authToken(hash: hash), record.appId == app.id else {
                throw APIError.authTokenNotFound
            }
            guard service.rateLimiter.allow(hash) else { throw APIError.tooManyRequests }
            let session = Session(appId: app.id, uid: record.uid, authTokenHash: hash, authTokenHint: record.hint)
            return Call(request: request, parameters: parameters, app: app, session: session)
        }
    }

    private func checkAPIKey(_ request: HTTPRequest) throws {
        guard let key = request.header("apikey"), !key.isEmpty else { throw APIError.emptyAPIKey }
        guard Crypto.constantTimeEquals(Crypto.sha256(key), Crypto.sha256(service.adminKey)) else { throw APIError.apiKeyNotFound }
    }

    private func requireApp(_ request: HTTPRequest) throws -> AppContext {
        guard let appId = request.header("appid"), !appId.isEmpty else { throw APIError.emptyAppId }
        guard appId.utf8.count <= 128, try service.store.app(id: appId) != nil else { throw APIError.appNotFound }
        return AppContext(id: appId)
    }

    /// The path for logs: the segment after `auth_tokens` is hidden, the one after `tokens`
    /// and any long segment are cut to a short prefix.
    static func redactedPath(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return segments.enumerated().map { index, segment in
            let previous = index > 0 ? segments[index - 1] : ""
            if previous == "auth_tokens" { return "…" }
            if previous == "tokens" || segment.count > 24 { return segment.prefix(6) + "…" }
            return segment
        }.joined(separator: "/")
    }
}
