#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// What revoking auth tokens did (``ServiceStore/revokeAuthTokens(appId:uid:now:)``), all in
/// one transaction.
public struct Revocation: Sendable, Hashable {
    /// The rule recorded on the jobs a revocation skipped (their log and trace say it).
    public static let rule = "revoked"

    /// Auth tokens revoked.
    public var authTokens: Int
    /// Push tokens registered with them, deleted.
    public var pushTokens: Int
    /// Jobs still queued for those push tokens, skipped with the rule `revoked`.
    public var skippedJobs: Int

    /// Creates a value.
    public init(authTokens: Int, pushTokens: Int, skippedJobs: Int) {
        self.authTokens = authTokens
        self.pushTokens = pushTokens
        self.skippedJobs = skippedJobs
    }
}

/// A push token deleted because the auth token it was registered with was revoked. The store
/// keeps it for the retention period so that a later send can record, in its log and trace,
/// that the device gets nothing because its session was revoked.
public struct RevokedPushToken: Sendable, Hashable {
    /// The app.
    public var appId: String
    /// The user it belonged to.
    public var uid: String
    /// The token text.
    public var token: String
    /// The kind of token.
    public var platform: TokenPlatform
    /// The provider it was registered with.
    public var providerId: String
    /// Its APNs environment, if known.
    public var environment: TokenEnvironment?
    /// When it was revoked.
    public var revokedAt: Date

    /// Creates a value.
    public init(
        appId: String, uid: String, token: String, platform: TokenPlatform, providerId: String, environment: TokenEnvironment?,
        revokedAt: Date
    ) {
        self.appId = appId
        self.uid = uid
        self.token = token
        self.platform = platform
        self.providerId = providerId
        self.environment = environment
        self.revokedAt = revokedAt
    }
}
