import Foundation

/// What the token lifecycle tells the outside world. Called on the engine's executor; the API
/// layer hops to the main queue.
struct TokenLifecycleEvents: Sendable {
    var registered: @Sendable (CometChatPushTokenPlatform) -> Void
    var registrationFailed: @Sendable (CometChatPushTokenPlatform, PNError) -> Void
    /// The user is gone (logout, or the service rejected the auth token).
    var sessionEnded: @Sendable (_ previous: PNSession) async -> Void
    /// A session was adopted (at `initialize` or a login): the catch-up may run.
    var sessionAdopted: @Sendable (PNSession) -> Void
    /// The keychain refused to save the active session.
    var keychainRefused: @Sendable (PNSecureStoreError) -> Void
}

/// What the token lifecycle has applied, readable at once from any thread (diagnostics, the
/// products' requests). Only the lifecycle writes it.
struct TokenLifecycleState: Sendable {
    /// The client API of the applied configuration.
    var api: ClientAPI?
    /// The session that registers tokens now.
    var session: PNSession?
    /// Where ``session`` came from; `nil` exactly when there is no session.
    var origin: PNSession.Origin?
}

/// The token lifecycle: the one serial owner of tokens, the session and registrations
/// (guide §4 and §6).
///
/// - Tokens are cached persistently whatever arrives first (before `initialize`, before login).
/// - They are registered under `providerId` when someone is logged in: at login, at
///   `initialize` when someone already is, and on rotation. The same token for the same user is
///   not sent again unless forced, older than a day, or what it carries changed (with a
///   self-hosted service: the private push key, the device's preferred languages).
/// - `autoRegisterTokens: false` stops registration at `initialize` and login and unregistration
///   at logout; a token delivered or rotated while a user is logged in is still registered.
/// - Network failures and 5xx are retried with capped exponential back-off and jitter while the
///   same user stays logged in; other 4xx are not; `AUTH_ERR_AUTH_TOKEN_NOT_FOUND` ends the session.
///
/// It owns the client API, the session and its origin (``state``), the keychain items of the
/// active session, and the saved configuration; the facade reads them from here.
actor TokenLifecycle {
    /// Cached tokens, registration records and outcomes, the saved configuration.
    nonisolated let tokenStore: TokenStore
    private let clock: PNClock
    private let logger: PNLogger
    private let tracker: WorkTracker
    private let timeZone: @Sendable () -> String
    private let apnsEnvironment: @Sendable () -> String?
    private let secureStore: @Sendable (_ accessGroup: String?) -> PNSecureStore
    private let sharedStore: @Sendable (_ appGroupID: String) -> PNKeyValueStore
    private let pushCrypto: PNPushCrypto
    private let preferredLanguages: @Sendable () -> [String]
    private let events: TokenLifecycleEvents
    /// The private push keys sent with every registration, with a self-hosted service only
    /// (a `clientHost` is set).
    private var privateKeys: PrivatePushKeyStore?

    /// The one copy of the applied API and session: written here only, read by the facade
    /// without waiting.
    private let applied = PNLocked(TokenLifecycleState())
    /// What the lifecycle has applied, now.
    nonisolated var state: TokenLifecycleState { applied.current }

    private var config: PNConfiguration?
    private var api: ClientAPI? { applied.withLock { $0.api } }
    var session: PNSession? { applied.withLock { $0.session } }
    var sessionOrigin: PNSession.Origin? { applied.withLock { $0.origin } }
    /// The app's keychain item of the active session.
    private let vault: SessionVault
    /// Where the Notification Service Extension finds the session: the App Group's access group
    /// of `extensionGroupID`.
    private var extensionVault: SessionVault?
    private var generation = 0
    private struct Running {
        var task: Task<Void, Never>
        var token: String
        var userKey: String
        var encryptionKey: String?
        var languages: [String]?
        var waiters: [@Sendable (PNResult<String>) -> Void]
    }
    private var running: [CometChatPushTokenPlatform: Running] = [:]
    /// Fingerprints of auth tokens the service rejected in this process: not adopted again.
    private var rejectedAuthTokens: Set<String> = []

    /// A day: an older registration of the same token is sent again.
    static let refreshInterval: TimeInterval = 24 * 60 * 60

    /// A lifecycle on `platform`'s storage, keychain, clock and logger.
    init(platform: PNPlatform, tracker: WorkTracker, events: TokenLifecycleEvents) {
        tokenStore = TokenStore(store: platform.store)
        clock = platform.clock
        logger = platform.logger
        self.tracker = tracker
        timeZone = platform.timeZoneIdentifier
        apnsEnvironment = platform.apnsEnvironment
        secureStore = platform.secureStore
        sharedStore = platform.sharedStore
        pushCrypto = platform.pushCrypto
        preferredLanguages = platform.preferredLanguages
        self.events = events
        vault = SessionVault(secure: platform.secureStore(nil), onFailure: events.keychainRefused)
    }

    // MARK: Configuration and session

    /// Called by `initialize` with a valid configuration: applies it, saves it (without the
    /// auth token) for a launch started by a push and, in the App Group, for the Notification
    /// Service Extension, and adopts the session.
    func configure(_ config: PNConfiguration, api: ClientAPI, session: PNSession?, origin: PNSession.Origin?) {
        self.config = config
        applied.withLock { $0.api = api }
        let saved = SavedConfiguration(config)
        tokenStore.savedConfiguration = saved
        extensionVault = nil
        privateKeys =
            !config.isSelfHosted
            ? nil : PrivatePushKeyStore(secure: secureStore(config.extensionGroupID), crypto: pushCrypto, clock: clock)
        if let group = config.extensionGroupID {
            extensionVault = SessionVault(secure: secureStore(group), onFailure: events.keychainRefused)
            TokenStore(store: sharedStore(group)).savedConfiguration = saved
        }
        adopt(session, origin: origin, isInitialize: true)
    }

    var isConfigured: Bool { config != nil }

    /// Saves the active session for the extension, in the app's keychain and the App Group's.
    private func saveActive(_ session: PNSession?, _ config: PNConfiguration, _ api: ClientAPI) {
        vault.saveActive(session, appId: config.appId, baseURL: api.baseURL)
        extensionVault?.saveActive(session, appId: config.appId, baseURL: api.baseURL)
    }

    /// A (possibly) new session from the session sources.
    func sessionChanged(_ new: PNSession?, origin: PNSession.Origin?) async {
        guard config != nil else { return }
        var new = new
        if let candidate = new, rejectedAuthTokens.contains(Fingerprint.of(candidate.authToken)) { new = nil }
        if new == session {
            applied.withLock { $0.origin = new == nil ? nil : origin }
            return
        }
        if let previous = session {
            if new == nil, let config, config.autoRegisterTokens, sessionOrigin == .chatSDK || sessionOrigin == .callsSDK,
                !tokenStore.records.isEmpty
            {
                // The user logged out of the CometChat SDK without unregisterTokens first: the
                // old auth token may still be good for one unregistration, so pushes stop here.
                logger.log(.info, "The CometChat SDK logged out: unregistering this device's tokens while the session may still allow it.")
                _ = await unregister()
            }
            await endSession(previous, reason: new == nil ? "the CometChat SDK or the app logged out" : "the session changed")
        }
        adopt(new, origin: origin, isInitialize: false)
    }

    private func adopt(_ new: PNSession?, origin: PNSession.Origin?, isInitialize: Bool) {
        guard let config, let api else { return }
        var new = new
        if let candidate = new, rejectedAuthTokens.contains(Fingerprint.of(candidate.authToken)) { new = nil }
        applied.withLock {
            $0.session = new
            $0.origin = new == nil ? nil : origin
        }
        saveActive(new, config, api)
        guard let new else { return }
        events.sessionAdopted(new)
        generation += 1
        if config.autoRegisterTokens {
            for platform in tokenStore.tokens.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                startRegistration(platform, force: false, completion: nil)
            }
        } else {
            logger.log(.info, "autoRegisterTokens is off: tokens are not registered at \(isInitialize ? "initialize" : "login").")
        }
    }

    /// Logout: unregisters first when `autoRegisterTokens` is on (awaited), then ends the session.
    func logout() async -> PNResult<Void> {
        guard let config, let previous = session else { return .success(()) }
        var result: PNResult<Void> = .success(())
        if config.autoRegisterTokens {
            result = await unregister()
        }
        await endSession(previous, reason: "logout")
        return result
    }

    private func endSession(_ previous: PNSession, reason: String) async {
        cancelRunning()
        generation += 1
        applied.withLock {
            $0.session = nil
            $0.origin = nil
        }
        if let config, let api { saveActive(nil, config, api) }
        logger.log(.info, "Session ended: \(reason).")
        await events.sessionEnded(previous)
    }

    private func cancelRunning() {
        let stopped = running.values
        running.removeAll()
        for registration in stopped {
            registration.task.cancel()
            registration.waiters.forEach { $0(.failure(.notLoggedIn("The registration stopped: the session ended."))) }
        }
    }

    /// Completes the waiters of the registration running for `platform` and, when `finished`,
    /// forgets it.
    private func complete(_ platform: CometChatPushTokenPlatform, _ result: PNResult<String>, finished: Bool) {
        guard var registration = running[platform] else { return }
        let waiters = registration.waiters
        registration.waiters = []
        running[platform] = finished ? nil : registration
        waiters.forEach { $0(result) }
    }

    /// The process is gone: stop every retry and accept nothing more.
    func terminate() {
        cancelRunning()
        generation += 1
        config = nil
        applied.withLock { $0 = TokenLifecycleState() }
    }

    // MARK: Tokens

    /// A token arrived from APNs, PushKit or Firebase. Cached always; registered when someone
    /// is logged in and it is new or rotated.
    func tokenArrived(_ token: String, platform: CometChatPushTokenPlatform, completion: (@Sendable (PNResult<String>) -> Void)?) {
        var tokens = tokenStore.tokens
        let rotated = tokens[platform] != token
        tokens[platform] = token
        tokenStore.tokens = tokens
        guard config != nil else {
            completion?(
                .failure(.notInitialised("The token is cached; it is registered once initialize(config:) runs and a user is logged in.")))
            return
        }
        guard session != nil else {
            completion?(.failure(.notLoggedIn("The token is cached; it is registered when a user logs in.")))
            return
        }
        if rotated { logger.log(.info, "A new \(platform.rawName) token arrived.") }
        startRegistration(platform, force: false, completion: completion)
        if platform == .apns, rotated, privateKeys != nil {
            // The private push key rotates with the APNs token: every other token is registered
            // again with the new key (each registration sees that its record has the old one).
            for other in tokenStore.tokens.keys.sorted(by: { $0.rawValue < $1.rawValue }) where other != .apns {
                startRegistration(other, force: false, completion: nil)
            }
        }
    }

    /// The token of `platform` is no longer valid (PushKit invalidation): stop using it.
    func tokenInvalidated(_ platform: CometChatPushTokenPlatform) {
        var tokens = tokenStore.tokens
        tokens[platform] = nil
        tokenStore.tokens = tokens
        var records = tokenStore.records
        records[platform] = nil
        tokenStore.records = records
        running[platform]?.task.cancel()
        running[platform] = nil
    }

    /// Registers every cached token; with `force`, even ones already registered.
    func registerAll(force: Bool) async -> [CometChatPushTokenPlatform: PNResult<String>] {
        let platforms = tokenStore.tokens.keys.sorted(by: { $0.rawValue < $1.rawValue })
        var results: [CometChatPushTokenPlatform: PNResult<String>] = [:]
        for platform in platforms {
            results[platform] = await withCheckedContinuation { continuation in
                startRegistration(platform, force: force) { continuation.resume(returning: $0) }
            }
        }
        return results
    }

    var cachedTokens: [CometChatPushTokenPlatform: String] { tokenStore.tokens }
    var records: [CometChatPushTokenPlatform: RegistrationRecord] { tokenStore.records }

    private func startRegistration(
        _ platform: CometChatPushTokenPlatform, force: Bool, completion: (@Sendable (PNResult<String>) -> Void)?
    ) {
        guard let config, let api else {
            completion?(.failure(.notInitialised()))
            return
        }
        guard let token = tokenStore.tokens[platform] else {
            completion?(.failure(PNError(code: .notLoggedIn, message: "No \(platform.rawName) token has arrived yet.")))
            return
        }
        guard let session else {
            completion?(.failure(.notLoggedIn()))
            return
        }
        guard let providerId = config.usableProviderId else {
            record(platform, .failure(.providerRequired))
            events.registrationFailed(platform, .providerRequired)
            completion?(.failure(.providerRequired))
            return
        }
        let key = session.storageKey
        let encryption: (field: [String: String], fingerprint: String)?
        switch privatePushEncryption() {
        case .keys(let keys): encryption = keys
        case .none: encryption = nil
        case .locked(let error):
            // Registering without the key would make the service forget the one it has, and the
            // device would get placeholders until its next registration: wait for the unlock
            // (the next launch, foreground or token registers again).
            logger.log(.info, "The \(platform.rawName) token is registered after the device's first unlock (the keychain is locked).")
            completion?(
                .failure(PNError(code: .networkError, message: "The keychain is locked until the first unlock: \(error.description)")))
            return
        }
        // Read at every registration, so that a change of the device's languages (iOS relaunches
        // the app for it) registers again at the next launch, and an unchanged list does not.
        let languages = registrationLanguages(config)
        if !force, let existing = tokenStore.records[platform], existing.token == token, existing.userKey == key,
            existing.providerId == providerId, existing.encryptionKey == encryption?.fingerprint, existing.languages == languages,
            clock.now().timeIntervalSince(existing.registeredAt) < Self.refreshInterval
        {
            completion?(.success(token))
            return
        }
        if !force, var current = running[platform], current.token == token, current.userKey == key,
            current.encryptionKey == encryption?.fingerprint, current.languages == languages
        {
            // The same registration is already under way: wait for it instead of sending it twice.
            if let completion { current.waiters.append(completion) }
            running[platform] = current
            return
        }
        if let previous = running[platform] {
            previous.task.cancel()
            previous.waiters.forEach { $0(.failure(PNError(code: .networkError, message: "Superseded by a newer registration."))) }
        }
        let myGeneration = generation
        tracker.begin()
        let task = Task {
            defer { tracker.end() }
            await self.registrationLoop(
                platform, token: token, providerId: providerId, session: session, userKey: key, encryption: encryption,
                languages: languages, generation: myGeneration, api: api)
        }
        running[platform] = Running(
            task: task, token: token, userKey: key, encryptionKey: encryption?.fingerprint, languages: languages,
            waiters: completion.map { [$0] } ?? [])
    }

    /// The registration's `languages` field (issue 30): the device's preferred languages,
    /// normalised (``PreferredLanguages/normalised(_:)``), with a self-hosted service only (a
    /// `clientHost` is set, as for `encryption`); `nil` when there are none to send.
    private func registrationLanguages(_ config: PNConfiguration) -> [String]? {
        guard config.isSelfHosted else { return nil }
        let languages = PreferredLanguages.normalised(preferredLanguages())
        return languages.isEmpty ? nil : languages
    }

    /// What a registration sends for private push.
    private enum PrivatePushEncryption {
        /// The `encryption` field and the key's fingerprint.
        case keys((field: [String: String], fingerprint: String))
        /// No field: no `clientHost`, or no key could be made (logged; the service then sends
        /// this device placeholders, and the next registration tries again).
        case none
        /// The keychain cannot be used before the device's first unlock: register later.
        case locked(PNSecureStoreError)
    }

    /// The registration's `encryption` field (issue 28: the device's P-256 public key and auth
    /// secret, base64url) and the key's fingerprint, with a self-hosted service only. Makes the
    /// key on first use and rotates it when the APNs token changed.
    private func privatePushEncryption() -> PrivatePushEncryption {
        guard let privateKeys else { return .none }
        do {
            let ring = try privateKeys.ensure(apnsToken: tokenStore.tokens[.apns])
            return .keys((["p256dh": ring.current.publicKey, "auth": ring.current.auth], ring.current.fingerprint))
        } catch let error as PNSecureStoreError {
            if error.status == PNSecureStoreError.interactionNotAllowed { return .locked(error) }
            logger.log(
                .error, "The private push key could not be saved to the keychain: \(error.description); tokens are registered without it.")
            events.keychainRefused(error)
        } catch {
            logger.log(.error, "No private push key could be made (\(error)); tokens are registered without it.")
        }
        return .none
    }

    private func registrationLoop(
        _ platform: CometChatPushTokenPlatform, token: String, providerId: String, session: PNSession, userKey: String,
        encryption: (field: [String: String], fingerprint: String)?, languages: [String]?, generation myGeneration: Int,
        api: ClientAPI
    ) async {
        var reportedFailure = false
        var isRetry = false
        _ = await PNRetryPolicy.tokenRegistration.run(isolation: self, on: clock) { () async -> PNRetryStep<Void> in
            // A retry is for the user it started for: a logout or another login in the wait ends it.
            if isRetry, generation != myGeneration || self.session != session { return .finished(()) }
            isRetry = true
            guard !Task.isCancelled else { return .finished(()) }
            var body: [String: Any] = [
                "fcmToken": token, "platform": platform.wireValue, "providerId": providerId, "timezone": timeZone(),
            ]
            // An APNs token belongs to one environment: saying which keeps a provider set to the
            // other from deleting it as BadDeviceToken (the service may ignore it).
            if platform != .fcm, let environment = apnsEnvironment() { body["environment"] = environment }
            // Private push: the key the service encrypts this token's pushes for.
            if let encryption { body["encryption"] = encryption.field }
            // The languages the service writes this token's notification text in.
            if let languages { body["languages"] = languages }
            let result = await api.call("POST", "/notifications/push/v1/tokens", json: body, authToken: session.authToken)
            guard !Task.isCancelled, generation == myGeneration, self.session == session else { return .finished(()) }
            switch result {
            case .success:
                var records = tokenStore.records
                records[platform] = RegistrationRecord(
                    token: token, userKey: userKey, providerId: providerId, registeredAt: clock.now(),
                    encryptionKey: encryption?.fingerprint, languages: languages)
                tokenStore.records = records
                record(platform, .success(token))
                logger.log(.info, "Registered the \(platform.rawName) token \(Fingerprint.of(token)).")
                events.registered(platform)
                complete(platform, .success(token), finished: true)
                return .finished(())
            case .failure(let error):
                logger.log(.warning, "Registering the \(platform.rawName) token failed: \(error.description)")
                record(platform, .failure(error))
                if !reportedFailure || !error.isRetryable {
                    events.registrationFailed(platform, error)
                    reportedFailure = true
                }
                let willRetry = error.isRetryable
                complete(platform, .failure(error), finished: !willRetry)
                if error.endsSession {
                    await sessionRejected(session)
                    return .finished(())
                }
                return willRetry ? .retry(()) : .finished(())
            }
        }
    }

    /// The service answered `AUTH_ERR_AUTH_TOKEN_NOT_FOUND` to a call made with `session` (a
    /// registration, the catch-up, a product's request): the auth token is gone (revoked, or
    /// another app's), so the user is logged out, and that token is not adopted again in this
    /// process. Nothing happens when `session` is no longer the active one.
    func sessionRejected(_ session: PNSession) async {
        guard self.session == session else { return }
        tokenStore.records = [:]
        rejectedAuthTokens.insert(Fingerprint.of(session.authToken))
        await endSession(session, reason: "the service rejected the auth token")
    }

    private func record(_ platform: CometChatPushTokenPlatform, _ result: PNResult<String>) {
        var outcomes = tokenStore.outcomes
        switch result {
        case .success:
            outcomes[platform.rawName] = RegistrationOutcome(succeeded: true, at: clock.now())
        case .failure(let error):
            outcomes[platform.rawName] = RegistrationOutcome(
                succeeded: false, at: clock.now(), errorCode: error.serverCode ?? error.code.name, message: error.message)
        }
        tokenStore.outcomes = outcomes
    }

    // MARK: Unregistration

    /// `DELETE /notifications/push/v1/tokens` with the current session; transient failures are
    /// tried three times in all, then reported.
    func unregister() async -> PNResult<Void> {
        guard config != nil, let api else { return .failure(.notInitialised()) }
        guard let session else { return .failure(.notLoggedIn()) }
        cancelRunning()
        let outcome = await PNRetryPolicy.tokenUnregistration.run(isolation: self, on: clock) {
            let result = await api.call("DELETE", "/notifications/push/v1/tokens", json: nil, authToken: session.authToken)
            if case .failure(let error) = result {
                logger.log(.warning, "Unregistering push tokens failed: \(error.description)")
            }
            return result
        }
        if outcome.interrupted { return .failure(PNError(code: .networkError, message: "Unregistering was cancelled.")) }
        switch outcome.value {
        case .success:
            tokenStore.records = [:]
            logger.log(.info, "Unregistered this session's push tokens.")
            return .success(())
        case .failure(let error):
            // The service no longer knows the session, so it has no tokens under it.
            if error.endsSession { tokenStore.records = [:] }
            return .failure(error)
        }
    }
}

extension PNRetryPolicy {
    /// Token registration: 2 s, doubling up to 300 s, each scaled by 0.5–1, for as long as the
    /// same user stays logged in.
    static let tokenRegistration = PNRetryPolicy(firstDelay: 2, maxDelay: 300, jitter: 0.5...1)
    /// Token unregistration: the same delays, three attempts in all.
    static let tokenUnregistration = PNRetryPolicy(firstDelay: 2, maxDelay: 300, jitter: 0.5...1, maxAttempts: 3)
}

extension PNSession {
    /// The user, for what the SDK keeps per user (registration records, the catch-up's cursor):
    /// `uid:` and the uid, or `auth:` and a fingerprint of the auth token when the uid is unknown.
    /// Never the auth token itself.
    var storageKey: String { uid.map { "uid:" + $0 } ?? "auth:" + Fingerprint.of(authToken) }
}
