#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Issues and caches the ES256 provider token APNs expects in `authorization: bearer …`.
///
/// One provider per signing key. A token is reused for `reuseInterval` (default 50 minutes,
/// inside Apple's 20–60 minute window) and replaced only when older than that, so routine
/// refreshes never happen more than once per 20 minutes. When APNs answers
/// `ExpiredProviderToken`, `invalidate(_:)` forces a fresh token once for that rejected
/// token; concurrent rejections of the same token trigger a single refresh.
///
/// With a ``ProviderTokenSharing`` (several instances of the service on one store), the
/// provider asks it whenever its cached token is missing, due or rejected: it takes the
/// shared token when that one is younger than the reuse interval and not the rejected one,
/// and signs (and shares) a new one only otherwise, so a cluster signs one token per key per
/// interval and one per rejection. Every other call is served from memory. When the shared
/// place cannot be reached it signs locally, but not when the newest token it knows is
/// younger than 20 minutes (APNs would refuse the update); it keeps that one and asks again
/// a minute later.
public final class APNsTokenProvider: Sendable {
    /// A signed token and the moment it was issued.
    public struct Token: Sendable, Equatable {
        /// The compact JWS.
        public let value: String
        /// Its `iat` claim.
        public let issuedAt: Date

        /// Creates a value (a token read back from a ``ProviderTokenSharing``).
        public init(value: String, issuedAt: Date) {
            self.value = value
            self.issuedAt = issuedAt
        }
    }

    struct Claims: Encodable {
        let iss: String
        let iat: Int64
    }

    /// What a provider keeps between calls.
    private struct State {
        /// The newest token known (signed here or taken from the shared place).
        var current: Token?
        /// The values of the latest tokens APNs refused, newest last.
        var rejected: [String] = []
        /// A thread is refreshing: others may keep using a due (not rejected) token meanwhile.
        var refreshing = false
        /// The shared place failed and signing was not allowed: `current` is used until then.
        var holdUntil: Date?
    }

    /// The shortest time a token is kept for before a routine refresh.
    public static let minimumReuse: TimeInterval = 20 * 60
    /// How long a token stays usable while another thread refreshes it (APNs refuses tokens
    /// older than an hour).
    static let validity: TimeInterval = 58 * 60
    /// After a failed call to the shared place, when signing is not allowed: how long the last
    /// token is used before the shared place is asked again.
    public static let sharingRetryDelay: TimeInterval = 60

    /// The APNs key id (`kid`).
    public let keyId: String
    /// The Apple developer team id (`iss`).
    public let teamId: String
    private let key: PrivateKey
    private let reuseInterval: TimeInterval
    private let now: @Sendable () -> Date
    private let sharing: (any ProviderTokenSharing)?
    private let state = Mutex(State())
    /// Held by the one thread that refreshes; others wait on it only when they have no token.
    private let refreshLock = Mutex(())
    private let signed = Atomic<Int>(0)
    private let adopted = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)

    /// Creates a provider.
    /// - Parameters:
    ///   - key: the `.p8` key (P-256).
    ///   - keyId: its key id.
    ///   - teamId: the team id that owns it.
    ///   - reuseInterval: how long a token is reused; clamped to 20–55 minutes.
    ///   - sharing: where the instances of a cluster share the token (nil: this provider
    ///     signs its own).
    ///   - now: the clock (injected in tests).
    public init(
        key: PrivateKey, keyId: String, teamId: String, reuseInterval: TimeInterval = 50 * 60,
        sharing: (any ProviderTokenSharing)? = nil, now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        guard key.kind == .p256 else { throw CryptoError.invalidKey("APNs needs a P-256 key") }
        self.key = key
        self.keyId = keyId
        self.teamId = teamId
        self.reuseInterval = min(max(reuseInterval, Self.minimumReuse), 55 * 60)
        self.sharing = sharing
        self.now = now
    }

    /// How many tokens this provider has signed (for tests and metrics).
    public var tokensSigned: Int { signed.load(ordering: .relaxed) }

    /// How many times this provider took the token another instance had signed and shared.
    public var tokensAdopted: Int { adopted.load(ordering: .relaxed) }

    /// How many times the shared place could not be reached (the provider then signed
    /// locally or kept its last token).
    public var sharingFailures: Int { failures.load(ordering: .relaxed) }

    /// When the token in use was signed; nil before the first one.
    public var currentIssuedAt: Date? { state.withLock { $0.current?.issuedAt } }

    /// The current token: the cached one while it is good, else one from the shared place or
    /// a newly signed one.
    public func token() throws -> Token {
        if let token = state.withLock({ cached($0, at: now()) }) { return token }
        return try refreshLock.withLock { _ in
            let time = now()
            // Another thread may have refreshed while this one waited.
            let (cachedToken, last, rejected) = state.withLock { state in
                let token = cached(state, at: time)
                if token == nil { state.refreshing = true }
                return (token, state.current, state.rejected)
            }
            if let cachedToken { return cachedToken }
            defer { state.withLock { $0.refreshing = false } }
            let (token, hold) = try obtain(at: time, last: last, rejected: rejected)
            state.withLock { state in
                state.current = token
                state.holdUntil = hold
            }
            return token
        }
    }

    /// Marks `rejected` as refused by APNs (`ExpiredProviderToken`): the next `token()`
    /// replaces it. A late rejection of a token that was already replaced changes nothing.
    public func invalidate(_ rejected: Token) {
        state.withLock { state in
            guard !state.rejected.contains(rejected.value) else { return }
            state.rejected.append(rejected.value)
            if state.rejected.count > 4 { state.rejected.removeFirst() }
        }
    }

    /// Whether `token` is good at `time` without asking anyone: not refused, younger than the
    /// reuse interval, and not issued in the future (beyond a minute of clock difference).
    private func isFresh(_ token: Token, at time: Date, rejected: [String]) -> Bool {
        !rejected.contains(token.value) && time.timeIntervalSince(token.issuedAt) < reuseInterval
            && time >= token.issuedAt.addingTimeInterval(-60)
    }

    /// The token to use without refreshing, if any.
    private func cached(_ state: State, at time: Date) -> Token? {
        guard let current = state.current else { return nil }
        if isFresh(current, at: time, rejected: state.rejected) { return current }
        if let hold = state.holdUntil, time < hold { return current }
        if state.refreshing, !state.rejected.contains(current.value), time.timeIntervalSince(current.issuedAt) < Self.validity {
            return current
        }
        return nil
    }

    /// A new token to use (and, after a failure of the shared place, until when to keep it
    /// without asking again).
    private func obtain(at time: Date, last: Token?, rejected: [String]) throws -> (Token, hold: Date?) {
        guard let sharing else { return (try sign(at: time), nil) }
        var signedHere: Token?
        var signingError: (any Error)?
        do {
            let shared = try sharing.withSharedToken(teamId: teamId, keyId: keyId) { stored in
                if let stored, isFresh(stored, at: time, rejected: rejected) { return nil }
                do {
                    let fresh = try sign(at: time)
                    signedHere = fresh
                    return fresh
                } catch {
                    signingError = error
                    throw error
                }
            }
            if let shared {
                if shared != signedHere, shared != last { adopted.add(1, ordering: .relaxed) }
                return (shared, nil)
            }
        } catch {
            if let signingError { throw signingError }
        }
        // The shared place failed (or answered nothing): go on alone.
        failures.add(1, ordering: .relaxed)
        if let signedHere { return (signedHere, nil) }
        if let last, time.timeIntervalSince(last.issuedAt) < Self.minimumReuse {
            return (last, time.addingTimeInterval(Self.sharingRetryDelay))
        }
        return (try sign(at: time), nil)
    }

    private func sign(at time: Date) throws -> Token {
        let iat = Int64(time.timeIntervalSince1970)
        let value = try JWT.sign(Claims(iss: teamId, iat: iat), with: key, keyId: keyId)
        signed.add(1, ordering: .relaxed)
        return Token(value: value, issuedAt: Date(timeIntervalSince1970: TimeInterval(iat)))
    }
}
