import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The app's client: Core's current session.
struct AppSessionClient: PNChatClient {
    weak var sdk: CometChatPushNotifications?

    func send(_ method: String, _ path: String, json body: [String: Any]?) async -> PNResult<Data> {
        guard let sdk else { return .failure(PNError(code: .notInitialised, message: "The SDK is gone.")) }
        // During a launch caused by the notification, `initialize` may still be resolving the session.
        await sdk.afterQueuedWork()
        return await sdk.sendClientRequest(method, path, json: body)
    }

    var isSelfHosted: Bool { sdk?.isSelfHosted ?? false }
}

/// The extension's client: the session the app shared through the App Group's keychain
/// access group.
struct SharedSessionClient: PNChatClient {
    let sdk: CometChatPushNotifications
    let appGroupID: String

    func send(_ method: String, _ path: String, json body: [String: Any]?) async -> PNResult<Data> {
        await sdk.sendSharedSessionRequest(method, path, json: body, appGroupID: appGroupID)
    }

    var isSelfHosted: Bool { sdk.sharedIsSelfHosted(appGroupID: appGroupID) }
}
