import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension PNNotificationServiceEngine {
    /// The engine of an extension process: `sdk` is the extension's own SDK instance (it never
    /// calls `initialize`), `appGroupID` the App Group shared with the app. Receipts go out with
    /// the session the app shared in the keychain; without an App Group or a shared session the
    /// extension sends none and the app does.
    @_spi(PNProducts)
    public static func forExtension(
        sdk: CometChatPushNotifications, appGroupID: String?, payload: [AnyHashable: Any],
        title: String?, body: String?, options: PNExtensionOptions
    ) -> PNNotificationServiceEngine {
        let platform = sdk.runtimePlatform
        let ports = PNChatPorts.from(platform)
        let group = appGroupID?.trimmingCharacters(in: .whitespacesAndNewlines)
        let usable = (group?.isEmpty == false) ? group : nil
        let client: PNChatClient? = usable.flatMap {
            sdk.hasSharedSession(appGroupID: $0) ? SharedSessionClient(sdk: sdk, appGroupID: $0) : nil
        }
        let directory = usable.flatMap { ports.receiptDirectory(appGroupID: $0) }
        if usable != nil, directory == nil {
            platform.logger.log(
                .error,
                "The App Group's container is out of reach (is the App Group in the extension's entitlements?); "
                    + "the app sends the delivered receipts.")
        }
        let environment = PNExtensionEnvironment(
            client: client, receiptDirectory: directory, downloader: ports.downloader,
            temporaryDirectory: ports.temporaryDirectory, clock: platform.clock, logger: platform.logger)
        // The app's own configuration, saved by `initialize` in the App Group: the extension never
        // sets a badge the app turned off.
        var options = options
        if let group = usable, sdk.sharedBadgeSetting(appGroupID: group) == false { options.setsBadge = false }
        return PNNotificationServiceEngine(payload: payload, title: title, body: body, options: options, environment: environment)
    }
}
