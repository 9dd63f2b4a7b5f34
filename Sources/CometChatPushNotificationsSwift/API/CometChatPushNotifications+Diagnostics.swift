import Foundation

extension CometChatPushNotifications {
    /// A redacted description of everything that affects delivery, for bug reports: products,
    /// configuration state, login state, cached tokens (as short fingerprints only), background
    /// modes, the last registration outcome per platform, and private push (`privatePush`: whether
    /// a key is there, the last decryption failure, and a warning when private pushes arrive with
    /// no Notification Service Extension to open them). It never holds a whole token, an auth
    /// token or a key.
    public func getDiagnostics() -> [String: Any] {
        let snapshot = state.withLock { $0 }
        let applied = lifecycle.state
        var out: [String: Any] = [:]
        out["sdkVersion"] = CometChatPushNotifications.version
        out["initialised"] = snapshot.config != nil
        if let problem = snapshot.configurationProblem { out["configurationError"] = problem }
        if let failure = snapshot.keychainFailure { out["keychainError"] = failure.description }
        out["products"] = ["CometChatPushNotificationsSwift"] + snapshot.products.map { type(of: $0).moduleName }
        if let config = snapshot.config {
            out["appId"] = config.appId
            out["region"] = config.region
            out["providerId"] = config.usableProviderId ?? "missing"
            out["clientHost"] =
                ClientAPI.baseURL(appId: config.appId, region: config.region, clientHost: config.clientHost)?
                .absoluteString
            out["autoRegisterTokens"] = config.autoRegisterTokens
            out["tokenRegistrar"] = config.tokenRegistrar.name
            out["enableBadgeCount"] = config.enableBadgeCount
            out["showInAppNotifications"] = config.showInAppNotifications
            out["extensionGroupID"] = config.extensionGroupID ?? "none"
        }
        out["loggedIn"] = applied.session != nil
        if let origin = applied.origin { out["sessionSource"] = origin.rawValue }
        if let uid = applied.session?.uid { out["uid"] = uid }
        var tokens: [String: String] = [:]
        for (platform, token) in tokenStore.tokens { tokens[platform.rawName] = Fingerprint.of(token) }
        out["tokens"] = tokens
        var registrations: [String: [String: Any]] = [:]
        for (name, outcome) in tokenStore.outcomes {
            var entry: [String: Any] = ["succeeded": outcome.succeeded, "at": ISO8601DateFormatter().string(from: outcome.at)]
            if let code = outcome.errorCode { entry["error"] = code }
            if let message = outcome.message { entry["message"] = message }
            registrations[name] = entry
        }
        out["lastRegistration"] = registrations
        if let failure = snapshot.apnsRegistrationFailure { out["apnsRegistrationFailure"] = failure }
        out["backgroundModes"] = platform.application.backgroundModes().sorted()
        out["privatePush"] = privatePushDiagnostics(snapshot.config)
        for product in snapshot.products {
            for (key, value) in product.diagnostics() { out[key] = value }
        }
        return out
    }

    /// Checks what could silence a notification or a ring: a missing provider; with the Calls
    /// product a missing `voip` background mode, VoIP entitlement or microphone permission;
    /// notifications off (whether or not the SDK asked for them: `requestNotificationPermission`
    /// only says who asks); and private pushes that reach the app as placeholders because no
    /// Notification Service Extension opens them. Returns the first problem, or `.ready`; throws only
    /// ``PNError/Code-swift.enum/notInitialised``.
    public func ensureRingReady() async throws -> PNRingReadiness {
        let check = ringReadinessCheck(try initialisedConfiguration().get())
        return await tracked { await check() }
    }

    /// Checks what could silence a notification or a ring, as ``ensureRingReady()`` does, and
    /// completes on the main queue with the first problem, or `.ready`.
    public func ensureRingReady(_ completion: @escaping @Sendable (PNResult<PNRingReadiness>) -> Void) {
        guard let config = requireInitialised(completion) else { return }
        let check = ringReadinessCheck(config)
        tracked({ .success(await check()) }, completion: completion)
    }

    /// The readiness check for `config`, with the products and permissions of now.
    private func ringReadinessCheck(_ config: PNConfiguration) -> @Sendable () async -> PNRingReadiness {
        let products = state.withLock { $0.products }
        let permissions = platform.permissions
        let store = privatePushStatusStore(appGroupID: config.extensionGroupID)
        let placeholdersOnly: @Sendable () -> Bool = { PrivatePushStatus.read(store).placeholdersOnly }
        return {
            if config.usableProviderId == nil { return .providerMissing }
            for product in products {
                let found = await product.ringReadiness()
                if found != .ready { return found }
            }
            guard await permissions.currentPermission().allowsNotifications else { return .notificationsOff }
            return placeholdersOnly() ? .privatePushWithoutExtension : .ready
        }
    }

    /// Clears the app icon badge. Does nothing while `enableBadgeCount` is off.
    public func clearBadgeCount() {
        guard configuration?.enableBadgeCount == true else { return }
        let application = platform.application
        onCallbackQueue { application.setBadgeCount(0) }
    }

    /// The SDK's version.
    public static let version = "2.0.0"
}
