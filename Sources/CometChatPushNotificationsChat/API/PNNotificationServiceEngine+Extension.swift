import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension PNNotificationServiceEngine {
    /// The engine of an extension process: `sdk` is the extension's own SDK instance (it never
    /// calls `initialize`), `appGroupID` the App Group shared with the app. Receipts go out with
    /// the session the app shared in the keychain; without an App Group or a shared session the
    /// extension sends none and the app does. A private push is opened with the key in the App
    /// Group's keychain access group and handled as the standard push inside it.
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
        // A private push (issue 28): the standard payload inside `enc` is handled exactly as a
        // standard push's; one that cannot be opened keeps its placeholder.
        switch sdk.openPrivatePush(payload, appGroupID: usable, process: "extension") {
        case .standard:
            return PNNotificationServiceEngine(payload: payload, title: title, body: body, options: options, environment: environment)
        case .opened(let opened):
            let texts = PrivatePushContent.alertTexts(opened)
            return PNNotificationServiceEngine(
                payload: opened, title: texts.title, body: texts.body, options: options, environment: environment,
                privatePush: .opened(opened))
        case .failed(let failure):
            return PNNotificationServiceEngine(
                payload: payload, title: title, body: body, options: options, environment: environment,
                privatePush: PrivatePushContent(opened: false, failure: failure.description))
        }
    }
}
