import Foundation

/// The SDK's configuration, passed to `initialize(config:)`.
///
/// Every option is a defaulted parameter, in the order of the reference guide's table. From
/// Objective-C, or to chain setters, use ``builder(appId:region:)``.
#if canImport(ObjectiveC)
@objc(PNConfiguration) @objcMembers
#endif
public final class PNConfiguration: NSObject, Sendable {
    /// Your CometChat app id. Required; must not be blank.
    public let appId: String
    /// Your CometChat app's region (`us`, `eu`, `in`). Required; must not be blank.
    public let region: String
    /// The dashboard provider the tokens are registered under. Without it registration fails
    /// with ``PNError/Code-swift.enum/providerRequired``.
    public let providerId: String?
    /// The App Group shared with the Notification Service Extension.
    public let extensionGroupID: String?
    /// Set the app icon badge from the payload's `unreadMessageCount`. Default `true`.
    public let enableBadgeCount: Bool
    /// Show chat notifications while the app is in the foreground. Default `true`.
    public let showInAppNotifications: Bool
    /// Ask for notification permission and register for remote notifications in
    /// `initialize`. Default `true`.
    public let requestNotificationPermission: Bool
    /// Register the tokens on login and unregister them on logout. Default `true`.
    public let autoRegisterTokens: Bool
    /// Whose session registers the tokens. Default ``PNTokenRegistrar/auto``.
    public let tokenRegistrar: PNTokenRegistrar
    /// A user auth token to register with when neither CometChat SDK is logged in.
    /// Kept in memory and in the keychain; never saved to plain storage.
    public let authToken: String?
    /// Register against this client host instead of the default one: a bare host
    /// (`api.example.com`) or a full base URL (`http://127.0.0.1:8080`).
    public let clientHost: String?
    /// How CallKit presents calls (Calls product).
    public let callKit: CallKitBranding
    /// Ask for the microphone in `initialize` (Calls product). Default `true`.
    public let requestCallPermissions: Bool
    /// Who owns the PushKit registry (Calls product). Default ``PNPushKitOwnership/sdk``.
    public let pushKitOwnership: PNPushKitOwnership
    /// Whether CallKit may be used here (Calls product). Default
    /// ``PNCallKitAvailability/automatic``: the device's region setting decides.
    public let callKitAvailability: PNCallKitAvailability
    /// Post a "Missed call" notification, with a Call back action, for a call that rang on this
    /// device and ended unanswered (Calls product), in the device's language when it is English,
    /// German, Spanish, French, Portuguese or Arabic (else English). Default `true`.
    public let missedCallNotifications: Bool

    /// Creates a configuration. Only `appId` and `region` are required.
    public init(
        appId: String,
        region: String,
        providerId: String? = nil,
        extensionGroupID: String? = nil,
        enableBadgeCount: Bool = true,
        showInAppNotifications: Bool = true,
        requestNotificationPermission: Bool = true,
        autoRegisterTokens: Bool = true,
        tokenRegistrar: PNTokenRegistrar = .auto,
        authToken: String? = nil,
        clientHost: String? = nil,
        callKit: CallKitBranding = CallKitBranding(),
        requestCallPermissions: Bool = true,
        pushKitOwnership: PNPushKitOwnership = .sdk,
        callKitAvailability: PNCallKitAvailability = .automatic,
        missedCallNotifications: Bool = true
    ) {
        self.appId = appId
        self.region = region
        self.providerId = providerId
        self.extensionGroupID = extensionGroupID
        self.enableBadgeCount = enableBadgeCount
        self.showInAppNotifications = showInAppNotifications
        self.requestNotificationPermission = requestNotificationPermission
        self.autoRegisterTokens = autoRegisterTokens
        self.tokenRegistrar = tokenRegistrar
        self.authToken = authToken
        self.clientHost = clientHost
        self.callKit = callKit
        self.requestCallPermissions = requestCallPermissions
        self.pushKitOwnership = pushKitOwnership
        self.callKitAvailability = callKitAvailability
        self.missedCallNotifications = missedCallNotifications
    }

    /// Starts a builder with the two required values.
    public static func builder(appId: String, region: String) -> PNConfigurationBuilder {
        PNConfigurationBuilder(appId: appId, region: region)
    }

    /// A builder holding this configuration's values, to change some of them.
    public func toBuilder() -> PNConfigurationBuilder {
        PNConfigurationBuilder(copying: self)
    }

    /// What is wrong with the configuration, or `nil` when it can be used.
    var validationProblem: String? {
        if appId.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return "PNConfiguration.appId is blank."
        }
        if region.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return "PNConfiguration.region is blank."
        }
        return nil
    }

    /// The provider id, or `nil` when missing or blank.
    var usableProviderId: String? {
        guard let providerId, !providerId.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return providerId
    }
}

extension PNConfiguration {
    /// Whether the SDK talks to a self-hosted service (this project's): a `clientHost` that is
    /// not blank. Only then does it send what only that service reads (private push keys,
    /// languages, read sync and preferences).
    var isSelfHosted: Bool { Self.isSelfHosted(clientHost: clientHost) }

    /// ``isSelfHosted`` of a saved `clientHost`.
    static func isSelfHosted(clientHost: String?) -> Bool {
        !(clientHost?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? true)
    }
}
