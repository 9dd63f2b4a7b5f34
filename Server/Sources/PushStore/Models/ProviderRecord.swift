#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// APNs or FCM credentials of an app.
public struct ProviderRecord: Sendable, Hashable {
    /// `apns` or `fcm`.
    public enum Kind: String, Sendable, Hashable, Codable {
        case apns, fcm
    }

    /// The app.
    public var appId: String
    /// The provider id tokens refer to.
    public var id: String
    /// APNs or FCM.
    public var kind: Kind
    /// Non-secret settings as JSON (key id, team id, bundle id, flags; project id, email…).
    public var settings: Data
    /// The secret (`.p8` key or service-account private key), sealed by the service.
    public var sealedSecret: Data
    /// Creation time.
    public var createdAt: Date
    /// Last update time.
    public var updatedAt: Date

    /// Creates a record.
    public init(appId: String, id: String, kind: Kind, settings: Data, sealedSecret: Data, createdAt: Date, updatedAt: Date) {
        self.appId = appId
        self.id = id
        self.kind = kind
        self.settings = settings
        self.sealedSecret = sealedSecret
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
