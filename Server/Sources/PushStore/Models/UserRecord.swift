#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user of an app.
public struct UserRecord: Sendable, Hashable {
    /// The app.
    public var appId: String
    /// The user id.
    public var uid: String
    /// A display name.
    public var name: String
    /// An avatar URL, if any.
    public var avatar: String?
    /// Creation time.
    public var createdAt: Date

    /// Creates a record.
    public init(appId: String, uid: String, name: String, avatar: String? = nil, createdAt: Date) {
        self.appId = appId
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.createdAt = createdAt
    }
}
