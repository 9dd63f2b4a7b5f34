import Foundation

/// Builds a ``PNConfiguration`` with chained setters, one per option.
///
/// ```swift
/// let config = PNConfiguration.builder(appId: "APP_ID", region: "us")
///     .providerId("PROVIDER_ID")
///     .extensionGroupID("group.com.example.app")
///     .build()
/// ```
#if canImport(ObjectiveC)
@objc(PNConfigurationBuilder)
#endif
public final class PNConfigurationBuilder: NSObject {
    private var appId: String
    private var region: String
    private var providerIdValue: String?
    private var extensionGroupIDValue: String?
    private var enableBadgeCountValue = true
    private var showInAppNotificationsValue = true
    private var requestNotificationPermissionValue = true
    private var autoRegisterTokensValue = true
    private var tokenRegistrarValue: PNTokenRegistrar = .auto
    private var authTokenValue: String?
    private var clientHostValue: String?
    private var callKitValue = CallKitBranding()
    private var requestCallPermissionsValue = true
    private var pushKitOwnershipValue: PNPushKitOwnership = .sdk
    private var callKitAvailabilityValue: PNCallKitAvailability = .automatic
    private var missedCallNotificationsValue = true

    init(appId: String, region: String) {
        self.appId = appId
        self.region = region
    }

    init(copying config: PNConfiguration) {
        appId = config.appId
        region = config.region
        providerIdValue = config.providerId
        extensionGroupIDValue = config.extensionGroupID
        enableBadgeCountValue = config.enableBadgeCount
        showInAppNotificationsValue = config.showInAppNotifications
        requestNotificationPermissionValue = config.requestNotificationPermission
        autoRegisterTokensValue = config.autoRegisterTokens
        tokenRegistrarValue = config.tokenRegistrar
        authTokenValue = config.authToken
        clientHostValue = config.clientHost
        callKitValue = config.callKit
        requestCallPermissionsValue = config.requestCallPermissions
        pushKitOwnershipValue = config.pushKitOwnership
        callKitAvailabilityValue = config.callKitAvailability
        missedCallNotificationsValue = config.missedCallNotifications
    }

    /// Sets ``PNConfiguration/providerId``.
    @discardableResult
    public func providerId(_ providerId: String?) -> PNConfigurationBuilder {
        providerIdValue = providerId
        return self
    }

    /// Sets ``PNConfiguration/extensionGroupID``.
    @discardableResult
    public func extensionGroupID(_ groupID: String?) -> PNConfigurationBuilder {
        extensionGroupIDValue = groupID
        return self
    }

    /// Sets ``PNConfiguration/enableBadgeCount``.
    @discardableResult
    public func enableBadgeCount(_ enabled: Bool) -> PNConfigurationBuilder {
        enableBadgeCountValue = enabled
        return self
    }

    /// Sets ``PNConfiguration/showInAppNotifications``.
    @discardableResult
    public func showInAppNotifications(_ show: Bool) -> PNConfigurationBuilder {
        showInAppNotificationsValue = show
        return self
    }

    /// Sets ``PNConfiguration/requestNotificationPermission``.
    @discardableResult
    public func requestNotificationPermission(_ request: Bool) -> PNConfigurationBuilder {
        requestNotificationPermissionValue = request
        return self
    }

    /// Sets ``PNConfiguration/autoRegisterTokens``.
    @discardableResult
    public func autoRegisterTokens(_ auto: Bool) -> PNConfigurationBuilder {
        autoRegisterTokensValue = auto
        return self
    }

    /// Sets ``PNConfiguration/tokenRegistrar``.
    @discardableResult
    public func tokenRegistrar(_ registrar: PNTokenRegistrar) -> PNConfigurationBuilder {
        tokenRegistrarValue = registrar
        return self
    }

    /// Sets ``PNConfiguration/authToken``.
    @discardableResult
    public func authToken(_ token: String?) -> PNConfigurationBuilder {
        authTokenValue = token
        return self
    }

    /// Sets ``PNConfiguration/clientHost``.
    @discardableResult
    public func overrideClientHost(_ host: String?) -> PNConfigurationBuilder {
        clientHostValue = host
        return self
    }

    /// Sets ``PNConfiguration/callKit``.
    @discardableResult
    public func callKit(
        name: String? = nil,
        iconTemplateImageName: String? = nil,
        ringtone: String? = nil,
        includeInRecents: Bool = true,
        supportsVideo: Bool = true
    ) -> PNConfigurationBuilder {
        callKitValue = CallKitBranding(
            name: name, iconTemplateImageName: iconTemplateImageName, ringtone: ringtone,
            includeInRecents: includeInRecents, supportsVideo: supportsVideo)
        return self
    }

    /// Sets ``PNConfiguration/requestCallPermissions``.
    @discardableResult
    public func requestCallPermissions(_ request: Bool) -> PNConfigurationBuilder {
        requestCallPermissionsValue = request
        return self
    }

    /// Sets ``PNConfiguration/pushKitOwnership``.
    @discardableResult
    public func pushKitOwnership(_ ownership: PNPushKitOwnership) -> PNConfigurationBuilder {
        pushKitOwnershipValue = ownership
        return self
    }

    /// Sets ``PNConfiguration/callKitAvailability``.
    @discardableResult
    public func callKitAvailability(_ availability: PNCallKitAvailability) -> PNConfigurationBuilder {
        callKitAvailabilityValue = availability
        return self
    }

    /// Sets ``PNConfiguration/missedCallNotifications``.
    @discardableResult
    public func missedCallNotifications(_ post: Bool) -> PNConfigurationBuilder {
        missedCallNotificationsValue = post
        return self
    }

    /// The configuration. Never fails: a blank `appId` or `region` is reported by `initialize`.
    public func build() -> PNConfiguration {
        PNConfiguration(
            appId: appId, region: region, providerId: providerIdValue,
            extensionGroupID: extensionGroupIDValue, enableBadgeCount: enableBadgeCountValue,
            showInAppNotifications: showInAppNotificationsValue,
            requestNotificationPermission: requestNotificationPermissionValue,
            autoRegisterTokens: autoRegisterTokensValue, tokenRegistrar: tokenRegistrarValue,
            authToken: authTokenValue, clientHost: clientHostValue, callKit: callKitValue,
            requestCallPermissions: requestCallPermissionsValue, pushKitOwnership: pushKitOwnershipValue,
            callKitAvailability: callKitAvailabilityValue, missedCallNotifications: missedCallNotificationsValue)
    }
}
