#if canImport(ObjectiveC)
import Foundation

// The Objective-C surface of the configuration builder: each setter forwards to the Swift
// setter it names, under the selector the reference guide chains
// (`[[[PNConfiguration builderWithAppId:region:] providerId:…] build]`). `PNConfiguration`
// itself exports its members (`@objcMembers`): `builderWithAppId:region:`, `toBuilder` and the
// read-only properties keep their Swift names.
extension PNConfigurationBuilder {
    /// ``providerId(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(providerId:)
    @discardableResult
    public func objcProviderId(_ providerId: String?) -> PNConfigurationBuilder { self.providerId(providerId) }

    /// ``extensionGroupID(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(extensionGroupID:)
    @discardableResult
    public func objcExtensionGroupID(_ groupID: String?) -> PNConfigurationBuilder { extensionGroupID(groupID) }

    /// ``enableBadgeCount(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(enableBadgeCount:)
    @discardableResult
    public func objcEnableBadgeCount(_ enabled: Bool) -> PNConfigurationBuilder { enableBadgeCount(enabled) }

    /// ``showInAppNotifications(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(showInAppNotifications:)
    @discardableResult
    public func objcShowInAppNotifications(_ show: Bool) -> PNConfigurationBuilder { showInAppNotifications(show) }

    /// ``requestNotificationPermission(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(requestNotificationPermission:)
    @discardableResult
    public func objcRequestNotificationPermission(_ request: Bool) -> PNConfigurationBuilder {
        requestNotificationPermission(request)
    }

    /// ``autoRegisterTokens(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(autoRegisterTokens:)
    @discardableResult
    public func objcAutoRegisterTokens(_ auto: Bool) -> PNConfigurationBuilder { autoRegisterTokens(auto) }

    /// ``tokenRegistrar(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(tokenRegistrar:)
    @discardableResult
    public func objcTokenRegistrar(_ registrar: PNTokenRegistrar) -> PNConfigurationBuilder { tokenRegistrar(registrar) }

    /// ``authToken(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(authToken:)
    @discardableResult
    public func objcAuthToken(_ token: String?) -> PNConfigurationBuilder { authToken(token) }

    /// ``overrideClientHost(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(overrideClientHost:)
    @discardableResult
    public func objcOverrideClientHost(_ host: String?) -> PNConfigurationBuilder { overrideClientHost(host) }

    /// ``callKit(name:iconTemplateImageName:ringtone:includeInRecents:supportsVideo:)`` for
    /// Objective-C, where every argument is given.
    @available(swift, obsoleted: 1)
    @objc(callKitWithName:iconTemplateImageName:ringtone:includeInRecents:supportsVideo:)
    @discardableResult
    public func objcCallKit(
        name: String?, iconTemplateImageName: String?, ringtone: String?, includeInRecents: Bool, supportsVideo: Bool
    ) -> PNConfigurationBuilder {
        callKit(
            name: name, iconTemplateImageName: iconTemplateImageName, ringtone: ringtone,
            includeInRecents: includeInRecents, supportsVideo: supportsVideo)
    }

    /// ``requestCallPermissions(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(requestCallPermissions:)
    @discardableResult
    public func objcRequestCallPermissions(_ request: Bool) -> PNConfigurationBuilder { requestCallPermissions(request) }

    /// ``pushKitOwnership(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(pushKitOwnership:)
    @discardableResult
    public func objcPushKitOwnership(_ ownership: PNPushKitOwnership) -> PNConfigurationBuilder { pushKitOwnership(ownership) }

    /// ``callKitAvailability(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(callKitAvailability:)
    @discardableResult
    public func objcCallKitAvailability(_ availability: PNCallKitAvailability) -> PNConfigurationBuilder {
        callKitAvailability(availability)
    }

    /// ``missedCallNotifications(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(missedCallNotifications:)
    @discardableResult
    public func objcMissedCallNotifications(_ post: Bool) -> PNConfigurationBuilder { missedCallNotifications(post) }

    /// ``build()`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(build)
    public func objcBuild() -> PNConfiguration { build() }
}
#endif
