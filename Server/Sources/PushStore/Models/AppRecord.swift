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
    /// Whether pushes carry their content in clear or sealed for each device (issue 28).
    public var privacy: AppPrivacy
    /// The alert a private chat push shows in clear (its `loc-key`); nil: ``AppPrivacy/defaultPlaceholder``.
    public var privatePlaceholder: String?
    /// The caller name a private call shows when it cannot be opened; nil:
    /// ``AppPrivacy/defaultCallPlaceholder``.
    public var privateCallPlaceholder: String?
    /// The urgency of its pushes by kind (issue 30); ``DeliveryPolicy/standard`` when it set none.
    public var deliveryPolicy: DeliveryPolicy
    /// Where a recipient's badge comes from when the send gives no number (issue 30).
    public var badge: AppBadge
    /// The app's notification texts per language and its `loc-key` choice (issue 30).
    public var localization: AppLocalization
    /// How long chat pushes to a user's other devices wait while the user reads their
    /// conversation on one device (issue 31); 0: they never wait.
    public var holdWhileActiveSeconds: Int

    /// Creates a record.
    public init(
        id: String, name: String, webhookURL: String? = nil, sealedWebhookSecret: Data? = nil, createdAt: Date,
        defaultAPNsProviderId: String? = nil, defaultFCMProviderId: String? = nil, privacy: AppPrivacy = .standard,
        privatePlaceholder: String? = nil, privateCallPlaceholder: String? = nil, deliveryPolicy: DeliveryPolicy = .standard,
        badge: AppBadge = .caller, localization: AppLocalization = .standard, holdWhileActiveSeconds: Int = 0
    ) {
        self.holdWhileActiveSeconds = holdWhileActiveSeconds
        self.localization = localization
        self.deliveryPolicy = deliveryPolicy
        self.badge = badge
        self.privacy = privacy
        self.privatePlaceholder = privatePlaceholder
        self.privateCallPlaceholder = privateCallPlaceholder
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

/// An app's privacy mode: `standard` sends the §4 payload in clear through APNs and FCM (as
/// before), `private` sends a placeholder and the payload encrypted for each device.
public enum AppPrivacy: String, Sendable, Hashable, CaseIterable {
    /// Payloads in clear (the default).
    case standard
    /// Payloads sealed per device; only a placeholder in clear.
    case `private`

    /// The placeholder alert of a private chat push when the app sets none.
    public static let defaultPlaceholder = "New message"
    /// The placeholder caller of a private call when the app sets none.
    public static let defaultCallPlaceholder = "Incoming call"
}

/// An app's badge default (issue 30): `caller` (pushes carry the count a send gives, as
/// before) or `auto` (the service counts each recipient's unread chat messages).
public enum AppBadge: String, Sendable, Hashable, CaseIterable {
    /// The badge a send gives, or none (the default).
    case caller
    /// The service's count (docs/design/service-badge.md).
    case auto
}
