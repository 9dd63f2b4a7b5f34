#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A tenant of the service: one chat app with its own users, tokens, providers and webhook.
public struct AppRecord: Sendable, Hashable {
    /// The app id (the `appid` header).
    public var id: String
    /// A display name.
    public var name: String
    /// Where events (quick replies, receipts, call declines) are posted; nil holds them.
    public var webhookURL: String?
    /// The webhook's HMAC secret, sealed (encrypted) by the service; opaque to the store.
    public var sealedWebhookSecret: Data?
    /// Creation time.
    public var createdAt: Date
    /// The APNs provider of tokens registered without a `providerId` (nil: such a registration
    /// is refused). The app's first APNs provider becomes it; deleting it clears it.
    public var defaultAPNsProviderId: String?
    /// The FCM provider of tokens registered without a `providerId`, as ``defaultAPNsProviderId``.
    public var defaultFCMProviderId: String?

    /// Creates a record.
    public init(
        id: String, name: String, webhookURL: String? = nil, sealedWebhookSecret: Data? = nil, createdAt: Date,
        defaultAPNsProviderId: String? = nil, defaultFCMProviderId: String? = nil
    ) {
        self.id = id
        self.name = name
        self.webhookURL = webhookURL
        self.sealedWebhookSecret = sealedWebhookSecret
        self.createdAt = createdAt
        self.defaultAPNsProviderId = defaultAPNsProviderId
        self.defaultFCMProviderId = defaultFCMProviderId
    }

    /// The default provider of a kind.
    public func defaultProviderId(_ kind: ProviderRecord.Kind) -> String? {
        kind == .apns ? defaultAPNsProviderId : defaultFCMProviderId
    }
}
