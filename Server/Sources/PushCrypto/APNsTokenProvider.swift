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
public final class APNsTokenProvider: Sendable {
    /// A signed token and the moment it was issued.
    public struct Token: Sendable, Equatable {
        /// The compact JWS.
        public let value: String
        /// Its `iat` claim.
        public let issuedAt: Date
    }

    struct Claims: Encodable {
        let iss: String
        let iat: Int64
    }

    /// The shortest time a token is kept for before a routine refresh.
    public static let minimumReuse: TimeInterval = 20 * 60

    /// The APNs key id (`kid`).
    public let keyID: String
    /// The Apple developer team id (`iss`).
    public let teamID: String
    private let key: PrivateKey
    private let reuseInterval: TimeInterval
    private let now: @Sendable () -> Date
    private let cached = Mutex<Token?>(nil)
    private let signed = Atomic<Int>(0)

    /// Creates a provider.
    /// - Parameters:
    ///   - key: the `.p8` key (P-256).
    ///   - keyID: its key id.
    ///   - teamID: the team id that owns it.
    ///   - reuseInterval: how long a token is reused; clamped to 20–55 minutes.
    ///   - now: the clock (injected in tests).
    public init(
        key: PrivateKey, keyID: String, teamID: String, reuseInterval: TimeInterval = 50 * 60,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        guard key.kind == .p256 else { throw CryptoError.invalidKey("APNs needs a P-256 key") }
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.reuseInterval = min(max(reuseInterval, Self.minimumReuse), 55 * 60)
        self.now = now
    }

    /// How many tokens this provider has signed (for tests and metrics).
    public var tokensSigned: Int { signed.load(ordering: .relaxed) }

    /// When the token in use was signed; nil before the first one.
    public var currentIssuedAt: Date? { cached.withLock { $0?.issuedAt } }

    /// The current token, signing a new one if there is none or it is due for refresh.
    public func token() throws -> Token {
        try cached.withLock { current in
            let time = now()
            if let token = current, time.timeIntervalSince(token.issuedAt) < reuseInterval,
                time >= token.issuedAt.addingTimeInterval(-60)
            {
                return token
            }
            let fresh = try sign(at: time)
            current = fresh
            return fresh
        }
    }

    /// Marks `rejected` as refused by APNs (`ExpiredProviderToken`): the next `token()`
    /// signs a new one. Does nothing if a newer token already replaced it.
    public func invalidate(_ rejected: Token) {
        cached.withLock { current in
            if current == rejected { current = nil }
        }
    }

    private func sign(at time: Date) throws -> Token {
        let iat = Int64(time.timeIntervalSince1970)
        let value = try JWT.sign(Claims(iss: teamID, iat: iat), with: key, keyID: keyID)
        signed.add(1, ordering: .relaxed)
        return Token(value: value, issuedAt: Date(timeIntervalSince1970: TimeInterval(iat)))
    }
}
