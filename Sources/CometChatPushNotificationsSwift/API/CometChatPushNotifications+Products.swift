import Foundation

extension CometChatPushNotifications {
    /// Sends a client API call with the session the app shared with its Notification Service
    /// Extension (the keychain item in the App Group's access group, with the app id and the
    /// service's base URL), for the Chat product's extension. Works without `initialize`.
    /// Fails with ``PNError/Code-swift.enum/notLoggedIn`` when the app shared no session.
    @_spi(PNProducts)
    public func sendSharedSessionRequest(
        _ method: String, _ path: String, json body: [String: Any]?, appGroupID: String
    ) async -> PNResult<Data> {
        guard let active = SessionVault(secure: platform.secureStore(appGroupID)).loadActive() else {
            return .failure(.notLoggedIn("The app shared no session with the extension through \(appGroupID)."))
        }
        let api = ClientAPI(baseURL: active.baseURL, appId: active.appId, transport: platform.transport)
        return await api.call(method, path, json: body, authToken: active.session.authToken)
    }

    /// Whether the app's configuration, as `initialize` saved it in the App Group, turns badges
    /// on: `nil` when the app saved none there (an app that never ran `initialize` with this
    /// App Group). The extension reads it so that it never sets a badge the app turned off.
    @_spi(PNProducts)
    public func sharedBadgeSetting(appGroupID: String) -> Bool? {
        TokenStore(store: platform.sharedStore(appGroupID)).savedConfiguration?.enableBadgeCount
    }

    /// Whether the app shared a session with its extension through `appGroupID`.
    @_spi(PNProducts)
    public func hasSharedSession(appGroupID: String) -> Bool {
        SessionVault(secure: platform.secureStore(appGroupID)).loadActive() != nil
    }
}

extension CometChatPushNotifications {
    /// Returns once the public calls made so far (`initialize`, logins, tokens) have been
    /// processed, so that a product's request made during launch sees the session they set up.
    @_spi(PNProducts)
    public func afterQueuedWork() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            jobs.submit { continuation.resume() }
        }
    }
}

extension CometChatPushNotifications {
    /// Calls `observer` each time the app sets a delegate (not `nil`), for a product that holds
    /// what it could not hand over while there was none (a tap on its own notification, rule 3).
    @_spi(PNProducts)
    public func observeDelegate(_ observer: @escaping @Sendable () -> Void) {
        state.withLock { $0.delegateObservers.append(observer) }
    }
}
