import CurlHTTP
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCrypto
import Synchronization

/// Exchanges a service-account JWT (RS256) for an OAuth access token at `token_uri` and
/// caches it until shortly before it expires. Concurrent callers share one exchange.
public final class FCMAccessTokens: Sendable {
    struct Claims: Encodable {
        let iss: String, scope: String, aud: String, iat: Int64, exp: Int64
    }

    struct TokenResponse: Decodable {
        let access_token: String
        let expires_in: Double?
    }

    struct State {
        var token: String?
        var expiresAt = Date.distantPast
        var waiters: [CheckedContinuation<Result<String, FCMError>, Never>] = []
        var fetching = false
    }

    /// The OAuth scope FCM HTTP v1 needs.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    private let account: FCMServiceAccount
    private let http: HTTP2Client
    private let destinations: DestinationPolicy
    private let now: @Sendable () -> Date
    private let state = Mutex(State())
    private let exchanges = Atomic<Int>(0)

    /// Creates a cache for `account`, exchanging through `http`.
    /// - Parameter destinations: where the exchange may connect (``FCMServiceAccount/tokenDestinations(for:base:)``
    ///   of the account's `token_uri` and this policy; the default allows public `https` addresses).
    public init(
        account: FCMServiceAccount, http: HTTP2Client, destinations: DestinationPolicy = DestinationPolicy(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.account = account
        self.http = http
        self.destinations = FCMServiceAccount.tokenDestinations(for: account.tokenURI, base: destinations)
        self.now = now
    }

    /// How many token exchanges happened (tests, metrics).
    public var exchangeCount: Int { exchanges.load(ordering: .relaxed) }

    /// A valid access token, from the cache or a new exchange.
    public func token() async -> Result<String, FCMError> {
        enum Next { case cached(String), wait, fetch }
        let time = now()
        let next: Next = state.withLock { state in
            if let token = state.token, time < state.expiresAt { return .cached(token) }
            if state.fetching { return .wait }
            state.fetching = true
            return .fetch
        }
        switch next {
        case .cached(let token): return .success(token)
        case .wait:
            return await withCheckedContinuation { continuation in
                let resumeNow: Result<String, FCMError>? = state.withLock { state in
                    if !state.fetching, let token = state.token { return .success(token) }
                    if !state.fetching { return .failure(.auth("token exchange failed")) }
                    state.waiters.append(continuation)
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        case .fetch:
            let result = await exchange()
            let waiters = state.withLock { state in
                state.fetching = false
                if case .success(let (token, lifetime)) = result {
                    state.token = token
                    // Refresh five minutes before expiry (or halfway for short-lived tokens).
                    state.expiresAt = time.addingTimeInterval(lifetime > 600 ? lifetime - 300 : lifetime / 2)
                }
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            let shared = result.map(\.0)
            for waiter in waiters { waiter.resume(returning: shared) }
            return shared
        }
    }

    /// Forgets the cached token if it is `rejected` (FCM answered 401 with it).
    public func invalidate(_ rejected: String) {
        state.withLock { state in
            if state.token == rejected { state.token = nil }
        }
    }

    private func exchange() async -> Result<(String, TimeInterval), FCMError> {
        exchanges.add(1, ordering: .relaxed)
        let iat = Int64(now().timeIntervalSince1970)
        let assertion: String
        do {
            assertion = try JWT.sign(
                Claims(iss: account.clientEmail, scope: Self.scope, aud: account.tokenURI, iat: iat, exp: iat + 3600),
                with: account.privateKey, keyId: account.privateKeyId, type: "JWT")
        } catch {
            return .failure(.auth("cannot sign the service-account JWT"))
        }
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let request = OutboundRequest(
            url: account.tokenURI, headers: [("content-type", "application/x-www-form-urlencoded")],
            body: Array(body.utf8), timeoutMilliseconds: 15_000, destinationPolicy: destinations)
        switch await http.send(request) {
        case .failure(let error) where error.isDestinationRefused:
            return .failure(.destinationRefused(error.message))
        case .failure(let error):
            return .failure(.transport(error.description))
        case .success(let response):
            guard response.status == 200,
                let decoded = try? JSONDecoder().decode(TokenResponse.self, from: Data(response.body))
            else {
                return .failure(.auth("token exchange answered \(response.status)"))
            }
            return .success((decoded.access_token, decoded.expires_in ?? 3600))
        }
    }
}
