import Foundation

extension CometChatPushNotifications {
    /// Hands over the APNs device token from
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    ///
    /// The token is cached, so it may arrive before `initialize` or before login: it is
    /// registered once someone is logged in. `completion` gets the token as lowercase hex once
    /// registered, or the reason it was not (yet): `.notLoggedIn` while nobody is logged in.
    /// To await that answer, use ``registerDeviceTokenAndWait(_:)``.
    public func registerDeviceToken(_ deviceToken: Data, completion: (@Sendable (PNResult<String>) -> Void)? = nil) {
        submitToken(PNHex.string(deviceToken), platform: .apns, answer: deliveredOnCallbackQueue(completion))
    }

    /// Hands over the APNs device token, as ``registerDeviceToken(_:completion:)`` does, and
    /// returns once it is registered: the token as lowercase hex. Throws the reason it was not
    /// (yet): ``PNError/Code-swift.enum/notLoggedIn`` while nobody is logged in (the token stays
    /// cached and is registered at login).
    @discardableResult
    public func registerDeviceTokenAndWait(_ deviceToken: Data) async throws -> String {
        let hex = PNHex.string(deviceToken)
        return try await withCheckedContinuation { continuation in
            submitToken(hex, platform: .apns) { continuation.resume(returning: $0) }
        }.get()
    }

    /// Hands over a Firebase registration token (FCM mode). Registered under the same
    /// `providerId` as the other tokens. To await the answer, use ``registerFCMTokenAndWait(_:)``.
    public func registerFCMToken(_ token: String, completion: (@Sendable (PNResult<String>) -> Void)? = nil) {
        switch usableFCMToken(token) {
        case .success(let trimmed): submitToken(trimmed, platform: .fcm, answer: deliveredOnCallbackQueue(completion))
        case .failure(let error): fail(completion, error)
        }
    }

    /// Hands over a Firebase registration token, as ``registerFCMToken(_:completion:)`` does, and
    /// returns the token once it is registered, or throws the reason it was not (yet).
    @discardableResult
    public func registerFCMTokenAndWait(_ token: String) async throws -> String {
        let trimmed = try usableFCMToken(token).get()
        return try await withCheckedContinuation { continuation in
            submitToken(trimmed, platform: .fcm) { continuation.resume(returning: $0) }
        }.get()
    }

    /// The trimmed FCM token, or the error for an empty one (logged).
    private func usableFCMToken(_ token: String) -> PNResult<String> {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.isEmpty else { return .success(trimmed) }
        platform.logger.log(.warning, "registerFCMToken was given an empty token; it was ignored.")
        return .failure(PNError(code: .serverError, message: "The FCM token is empty."))
    }

    /// Reports `application(_:didFailToRegisterForRemoteNotificationsWithError:)`: no APNs
    /// token (missing entitlement, the Simulator). It reaches the delegate's
    /// `onPushTokenRegistrationFailed(platform:error:)` and ``getDiagnostics()``.
    public func handleRegistrationFailure(_ error: Error) {
        let message = "APNs did not issue a device token: \((error as NSError).localizedDescription)"
        platform.logger.log(.error, message)
        let pnError = PNError(code: .serverError, message: message, serverCode: "APNS_REGISTRATION_FAILED")
        state.withLock { $0.apnsRegistrationFailure = message }
        notifyDelegate { $0.pnOnPushTokenRegistrationFailed(.apns, pnError) }
    }

    /// Registers the cached tokens now, for the logged-in user, and returns the platforms
    /// registered; throws the first failure.
    @discardableResult
    public func registerTokens() async throws -> [CometChatPushTokenPlatform] {
        _ = try initialisedConfiguration().get()
        return try await queued { await self.registerCachedTokens(force: false) }.get()
    }

    /// Registers the cached tokens now, for the logged-in user. `completion` gets the
    /// platforms registered, or the first failure. The `async` form is ``registerTokens()``.
    public func registerTokens(completion: (@Sendable (PNResult<[CometChatPushTokenPlatform]>) -> Void)? = nil) {
        guard requireInitialised(completion) != nil else { return }
        queued({ [weak self] in await self?.registerCachedTokens(force: false) }, completion: completion)
    }

    /// Unregisters this session's tokens and returns once the service has removed them, or
    /// throws why it did not. Await it before logging the user out: the request is
    /// authenticated with the user's session.
    public func unregisterTokens() async throws {
        _ = try initialisedConfiguration().get()
        let lifecycle = self.lifecycle
        try await queued { await lifecycle.unregister() }.get()
    }

    /// Unregisters this session's tokens. Call it, and wait for it, before logging the user
    /// out: the request is authenticated with the user's session. The `async` form is
    /// ``unregisterTokens()``.
    public func unregisterTokens(completion: (@Sendable (PNResult<Void>) -> Void)? = nil) {
        guard requireInitialised(completion) != nil else { return }
        let lifecycle = self.lifecycle
        queued({ await lifecycle.unregister() }, completion: completion)
    }

    /// Registers the tokens again (even ones already registered) and returns the platforms
    /// registered; throws the first failure.
    public func verifyPushSetup() async throws -> [CometChatPushTokenPlatform] {
        _ = try initialisedConfiguration().get()
        return try await queued { await self.registerCachedTokens(force: true) }.get()
    }

    /// Registers the tokens again (even ones already registered) and reports the outcome:
    /// the platforms registered, or the first failure. The `async` form is ``verifyPushSetup()``.
    public func verifyPushSetup(completion: @escaping @Sendable (PNResult<[CometChatPushTokenPlatform]>) -> Void) {
        guard requireInitialised(completion) != nil else { return }
        queued({ [weak self] in await self?.registerCachedTokens(force: true) }, completion: completion)
    }

    /// Registers every cached token (with `force`, even those already registered) for the
    /// session the sources hold now. Runs as a queued job.
    private func registerCachedTokens(force: Bool) async -> PNResult<[CometChatPushTokenPlatform]> {
        await refreshSessionNow()
        let results = await lifecycle.registerAll(force: force)
        return Self.summarise(results, loggedIn: await lifecycle.session != nil)
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

    /// Queues `token`: cached at once, registered when someone is logged in. `answer` gets the
    /// outcome on whichever thread the lifecycle reports it.
    private func submitToken(
        _ token: String, platform kind: CometChatPushTokenPlatform, answer: (@Sendable (PNResult<String>) -> Void)?
    ) {
        let lifecycle = self.lifecycle
        jobs.submit { [weak self] in
            await self?.refreshSessionNow()
            await lifecycle.tokenArrived(token, platform: kind, completion: answer)
        }
    }

    /// `completion`, called on the callback queue while the SDK instance exists.
    private func deliveredOnCallbackQueue<T: Sendable>(
        _ completion: (@Sendable (PNResult<T>) -> Void)?
    ) -> (@Sendable (PNResult<T>) -> Void)? {
        guard let completion else { return nil }
        return { [weak self] result in self?.onCallbackQueue { completion(result) } }
    }

    /// Hands over a token from a product (the Calls product's VoIP token).
    @_spi(PNProducts)
    public func submitProductToken(_ token: String, platform kind: CometChatPushTokenPlatform) {
        submitToken(token, platform: kind, answer: nil)
    }

    /// A product's token is gone (PushKit invalidated the VoIP token).
    @_spi(PNProducts)
    public func invalidateProductToken(_ platform: CometChatPushTokenPlatform) {
        let lifecycle = self.lifecycle
        jobs.submit { await lifecycle.tokenInvalidated(platform) }
    }
}
