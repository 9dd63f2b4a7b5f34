import Foundation

extension CometChatPushNotifications {
    /// Hands over the APNs device token from
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    ///
    /// The token is cached, so it may arrive before `initialize` or before login: it is
    /// registered once someone is logged in. `completion` gets the token as lowercase hex once
    /// registered, or the reason it was not (yet): `.notLoggedIn` while nobody is logged in.
    public func registerDeviceToken(_ deviceToken: Data, completion: (@Sendable (PNResult<String>) -> Void)? = nil) {
        submitToken(PNHex.string(deviceToken), platform: .apns, completion: completion)
    }

    /// Hands over a Firebase registration token (FCM mode). Registered under the same
    /// `providerId` as the other tokens.
    public func registerFCMToken(_ token: String, completion: (@Sendable (PNResult<String>) -> Void)? = nil) {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            platform.logger.log(.warning, "registerFCMToken was given an empty token; it was ignored.")
            if let completion {
                onCallbackQueue { completion(.failure(PNError(code: .serverError, message: "The FCM token is empty."))) }
            }
            return
        }
        submitToken(trimmed, platform: .fcm, completion: completion)
    }

    /// Reports `application(_:didFailToRegisterForRemoteNotificationsWithError:)`: no APNs
    /// token (missing entitlement, the Simulator). It reaches the delegate's
    /// `onPushTokenRegistrationFailed(platform:error:)` and ``getDiagnostics()``.
    #if canImport(ObjectiveC)
    @objc(handleRegistrationFailure:)
    #endif
    public func handleRegistrationFailure(_ error: Error) {
        let message = "APNs did not issue a device token: \((error as NSError).localizedDescription)"
        platform.logger.log(.error, message)
        let pnError = PNError(code: .serverError, message: message, serverCode: "APNS_REGISTRATION_FAILED")
        state.withLock { $0.apnsRegistrationFailure = message }
        notifyDelegate { $0.pnOnPushTokenRegistrationFailed(.apns, pnError) }
    }

    /// Registers the cached tokens now, for the logged-in user. `completion` gets the
    /// platforms registered, or the first failure.
    public func registerTokens(completion: (@Sendable (PNResult<[CometChatPushTokenPlatform]>) -> Void)? = nil) {
        guard requireInitialised(completion) != nil else { return }
        let lifecycle = self.lifecycle
        jobs.submit { [weak self] in
            guard let self else { return }
            await self.refreshSessionNow()
            let results = await lifecycle.registerAll(force: false)
            let outcome = Self.summarise(results, loggedIn: await lifecycle.session != nil)
            if let completion { self.onCallbackQueue { completion(outcome) } }
        }
    }

    /// Unregisters this session's tokens. Call it, and wait for it, before logging the user
    /// out: the request is authenticated with the user's session.
    public func unregisterTokens(completion: (@Sendable (PNResult<Void>) -> Void)? = nil) {
        guard requireInitialised(completion) != nil else { return }
        let lifecycle = self.lifecycle
        jobs.submit { [weak self] in
            let result = await lifecycle.unregister()
            if let completion { self?.onCallbackQueue { completion(result) } }
        }
    }

    /// Registers the tokens again (even ones already registered) and reports the outcome:
    /// the platforms registered, or the first failure.
    public func verifyPushSetup(completion: @escaping @Sendable (PNResult<[CometChatPushTokenPlatform]>) -> Void) {
        guard requireInitialised(completion) != nil else { return }
        let lifecycle = self.lifecycle
        jobs.submit { [weak self] in
            guard let self else { return }
            await self.refreshSessionNow()
            let results = await lifecycle.registerAll(force: true)
            let outcome = Self.summarise(results, loggedIn: await lifecycle.session != nil)
            self.onCallbackQueue { completion(outcome) }
        }
    }

    static func summarise(
        _ results: [CometChatPushTokenPlatform: PNResult<String>], loggedIn: Bool
    ) -> PNResult<[CometChatPushTokenPlatform]> {
        guard loggedIn else { return .failure(.notLoggedIn()) }
        if results.isEmpty {
            return .failure(PNError(code: .notLoggedIn, message: "No push token has arrived yet."))
        }
        var registered: [CometChatPushTokenPlatform] = []
        for platform in results.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            switch results[platform]! {
            case .success: registered.append(platform)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(registered)
    }

    private func submitToken(
        _ token: String, platform kind: CometChatPushTokenPlatform, completion: (@Sendable (PNResult<String>) -> Void)?
    ) {
        let lifecycle = self.lifecycle
        var wrapped: (@Sendable (PNResult<String>) -> Void)?
        if let completion {
            wrapped = { @Sendable [weak self] (result: PNResult<String>) -> Void in
                self?.onCallbackQueue { completion(result) }
            }
        }
        jobs.submit { [weak self, wrapped] in
            await self?.refreshSessionNow()
            await lifecycle.tokenArrived(token, platform: kind, completion: wrapped)
        }
    }

    /// Hands over a token from a product (the Calls product's VoIP token).
    @_spi(PNProducts)
    public func submitProductToken(_ token: String, platform kind: CometChatPushTokenPlatform) {
        submitToken(token, platform: kind, completion: nil)
    }

    /// A product's token is gone (PushKit invalidated the VoIP token).
    @_spi(PNProducts)
    public func invalidateProductToken(_ platform: CometChatPushTokenPlatform) {
        let lifecycle = self.lifecycle
        jobs.submit { await lifecycle.tokenInvalidated(platform) }
    }
}
