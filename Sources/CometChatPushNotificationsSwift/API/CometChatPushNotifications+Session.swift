import Foundation

extension CometChatPushNotifications {
    /// Logs a user in, for apps with their own login (no CometChat Chat or Calls SDK session).
    /// The cached tokens are then registered for this user (with `autoRegisterTokens` on).
    ///
    /// The auth token is kept in memory and in the keychain (shared with the Notification
    /// Service Extension through the App Group), never in plain storage; the session is
    /// restored on the next launch.
    public func setSession(uid: String, authToken: String) {
        let uid = uid.trimmingCharacters(in: .whitespacesAndNewlines)
        let token = authToken.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !uid.isEmpty, !token.isEmpty else {
            platform.logger.log(.warning, "setSession(uid:authToken:) was given a blank uid or auth token; it was ignored.")
            return
        }
        let session = PNSession(uid: uid, authToken: token)
        state.withLock {
            $0.appSession = session
            $0.vault.appSession = session
        }
        refreshSession()
    }

    /// Logs the app's user out: with `autoRegisterTokens` on, this session's tokens are
    /// unregistered first (awaited), then the session ends: a ringing or answered call ends and
    /// the badge is cleared. The tokens stay cached for the next user. To await the outcome, use
    /// ``clearSessionAndWait()``.
    public func clearSession(completion: (@Sendable (PNResult<Void>) -> Void)? = nil) {
        queued({ [weak self] in await self?.endAppSession() }, completion: completion)
    }

    /// Logs the app's user out, as ``clearSession(completion:)`` does, and returns once the
    /// session has ended; throws why the tokens could not be unregistered (the session ends all
    /// the same).
    public func clearSessionAndWait() async throws {
        try await queued { await self.endAppSession() }.get()
    }

    /// Unregisters the app session's tokens (with `autoRegisterTokens` on) and ends it. Runs as
    /// a queued job.
    private func endAppSession() async -> PNResult<Void> {
        let result: PNResult<Void>
        if configuration != nil, await lifecycle.sessionOrigin == .app {
            result = await lifecycle.logout()
        } else {
            result = .success(())
        }
        state.withLock {
            $0.appSession = nil
            $0.vault.appSession = nil
        }
        await refreshSessionNow()
        return result
    }

    /// Looks for a login or logout in the session sources (a linked CometChat SDK, the app's
    /// own login, the configuration's auth token). The SDK calls this itself when the app
    /// becomes active and periodically while a CometChat SDK is linked.
    public func refreshSession() {
        jobs.submit { [weak self] in await self?.refreshSessionNow() }
    }

    /// Resolves the session and hands it to the lifecycle. Runs inside an ordered job.
    func refreshSessionNow() async {
        guard let config = configuration else { return }
        let resolved = resolveSession(config)
        await lifecycle.sessionChanged(resolved?.0, origin: resolved?.1)
    }

    /// The lifecycle ended a session: logout, or the service rejected the auth token.
    func sessionDidEnd(_ previous: PNSession) async {
        let (config, products) = state.withLock { state -> (PNConfiguration?, [PNProductModule]) in
            if state.appSession == previous {
                // The service rejected it, or the app logged out: don't restore it next launch.
                state.appSession = nil
                state.vault.appSession = nil
            }
            return (state.config, state.products)
        }
        if config?.enableBadgeCount == true {
            let application = platform.application
            onCallbackQueue { application.setBadgeCount(0) }
        }
        for product in products { await product.sessionDidEnd() }
        // The conversation reported for the old session is cleared, with its auth token.
        activity.trigger()
    }

    /// The uid of the logged-in user, when known.
    @_spi(PNProducts)
    public var currentUID: String? { lifecycle.state.session?.uid }

    /// Sends a client API call with the current session, for products (receipts, replies,
    /// call status) and Core's own calls. An answer `AUTH_ERR_AUTH_TOKEN_NOT_FOUND` logs the
    /// user out, as it does for a token registration (wire contract §2).
    @_spi(PNProducts)
    public func sendClientRequest(_ method: String, _ path: String, json body: [String: Any]?) async -> PNResult<Data> {
        let applied = lifecycle.state
        guard let api = applied.api, let session = applied.session else {
            return .failure(configuration == nil ? .notInitialised() : .notLoggedIn())
        }
        let result = await api.call(method, path, json: body, authToken: session.authToken)
        if case .failure(let error) = result, error.endsSession {
            platform.logger.log(.warning, "The service rejected the auth token: the session ends.")
            await lifecycle.sessionRejected(session)
        }
        return result
    }
}
