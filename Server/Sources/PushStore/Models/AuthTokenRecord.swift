#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user's session credential. Only its SHA-256 hash is stored, plus a short hint
/// (the first characters) so operators can tell tokens apart.
public struct AuthTokenRecord: Sendable, Hashable {
    /// SHA-256 of the token text.
    public var hash: Data
    /// The app.
    public var appId: String
    /// The user.
    public var uid: String
    /// The first characters of the token followed by "…".
    public var hint: String
    /// Creation time.
    public var createdAt: Date

    /// Creates a record.
    public init(hash: Data, appId: String, uid: String, hint: String, createdAt: Date) {
        self.hash = hash
        self.appId = appId
        self.uid = uid
        self.hint = hint
        self.createdAt = createdAt
    }
}
