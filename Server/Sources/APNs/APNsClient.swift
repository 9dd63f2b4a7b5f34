import CurlHTTP
import NativeHTTP2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCrypto
import Synchronization

/// Sends notifications to APNs with token (JWT) authentication over HTTP/2.
///
/// One client per (environment, key id): APNs binds a connection to the first key id
/// used on it, so the client's connection pool never mixes keys. The pool holds a fixed
/// number of connections, each multiplexing up to the server's stream limit. Safe to use from any
/// thread; many sends run concurrently as streams on a few connections.
public final class APNsClient: Sendable {
    /// The environment this client talks to.
    public let environment: APNsEnvironment
    /// The provider-token cache for this client's key.
    public let tokens: APNsTokenProvider
    /// One HTTP/2 connection (and loop thread) each; requests are spread round-robin.
    private let connections: [any HTTP2Transport]
    /// What the connections send with.
    public let transport: APNsTransport
    private let next = Atomic<Int>(0)
    private let timeoutMilliseconds: Int

    /// Creates a client.
    /// - Parameters:
    ///   - environment: production, sandbox or a mock's URL.
    ///   - tokens: the JWT cache for the signing key.
    ///   - http: the connections' configuration (CA file for mocks, streams per connection).
    ///   - connections: how many connections the pool keeps, each driven by its own thread.
    ///   - timeoutMilliseconds: per-request time limit.
    ///   - transport: libcurl or the HTTP/2 client of our own. When the native client cannot be
    ///     made (a CA file that does not load), the client falls back to libcurl, which then
    ///     reports the problem on every request.
    public init(
        environment: APNsEnvironment, tokens: APNsTokenProvider,
        http: HTTP2Client.Configuration = HTTP2Client.Configuration(), connections: Int = 2,
        timeoutMilliseconds: Int = 15_000, transport: APNsTransport = .curl
    ) {
        self.environment = environment
        self.tokens = tokens
        var http = http
        // One connection per loop in use, so the one-stream-until-authenticated gate covers it;
        // two allowed, because a connection that received GOAWAY stays counted until its own
        // streams end (libcurl 7.88 may wait for them until the request deadline), and the
        // streams it refused must be sent again on a new one at once.
        http.singleStreamUntilAuthenticated = true
        http.maxConnectionsPerHost = 2
        let name = "apns-\(tokens.keyId)"
        let made: [any HTTP2Transport]? =
            transport == .native
            ? try? (0..<max(connections, 1)).map { _ in
                try NativeHTTP2Client(baseURL: environment.baseURL, configuration: NativeHTTP2Client.Configuration(http), name: name)
            } : nil
        self.transport = made == nil ? .curl : transport
        self.connections = made ?? (0..<max(connections, 1)).map { _ in HTTP2Client(configuration: http, name: name) }
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Requests submitted and not yet answered.
    public var inFlight: Int { connections.reduce(0) { $0 + $1.inFlight } }

    /// Connections in the pool.
    public var connectionCount: Int { connections.count }

    /// Connections whose last request was answered.
    public var connectionsUp: Int { connections.filter(\.isAnswering).count }

    /// Sends one notification. On `403 ExpiredProviderToken` it signs a new token and
    /// retries once.
    public func send(_ notification: APNsNotification) async -> APNsResponse {
        await withCheckedContinuation { continuation in
            send(notification) { continuation.resume(returning: $0) }
        }
    }

    /// Sends one notification and calls `completion` with the answer on the connection's
    /// loop thread (keep it short). On `403 ExpiredProviderToken` it signs a new token and
    /// retries once.
    public func send(_ notification: APNsNotification, completion: @escaping @Sendable (APNsResponse) -> Void) {
        if let problem = notification.localProblem { return completion(.rejectedLocally(reason: problem)) }
        attempt(notification) { [self] first, token in
            guard case .answered(let answer) = first, answer.status == 403, answer.reason == .expiredProviderToken,
                let token
            else {
                return completion(first)
            }
            tokens.invalidate(token)
            attempt(notification) { second, _ in completion(second) }
        }
    }

    /// Stops the connection pool.
    public func shutdown() {
        for connection in connections { connection.shutdown() }
    }

    private func attempt(
        _ notification: APNsNotification,
        completion: @escaping @Sendable (APNsResponse, APNsTokenProvider.Token?) -> Void
    ) {
        let token: APNsTokenProvider.Token
        do {
            token = try tokens.token()
        } catch {
            return completion(.rejectedLocally(reason: .invalidProviderToken), nil)
        }
        let index = next.add(1, ordering: .relaxed).newValue % connections.count
        connections[index].send(request(for: notification, token: token)) { result in
            switch result {
            case .success(let response):
                completion(.answered(APNsAnswer(status: response.status, headers: response.headers, body: response.body)), token)
            case .failure(let error):
                completion(.transportFailure(message: error.description), token)
            }
        }
    }

    func request(for notification: APNsNotification, token: APNsTokenProvider.Token) -> OutboundRequest {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer " + token.value),
            ("apns-topic", notification.topic),
            ("apns-push-type", notification.pushType.rawValue),
            ("apns-priority", String(notification.priority)),
            ("apns-expiration", String(notification.expiration)),
        ]
        if let collapse = notification.collapseId { headers.append(("apns-collapse-id", collapse)) }
        if let id = notification.apnsId { headers.append(("apns-id", id)) }
        return OutboundRequest(
            url: environment.baseURL + "/3/device/" + notification.deviceToken, headers: headers,
            body: notification.payload, timeoutMilliseconds: timeoutMilliseconds)
    }
}
