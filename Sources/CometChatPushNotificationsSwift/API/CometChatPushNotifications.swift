import Foundation

/// The SDK's entry point. Call ``initialize(config:)`` in
/// `application(_:didFinishLaunchingWithOptions:)` on every launch, before the user logs in.
///
/// Every method may be called from any thread; completions and delegate callbacks arrive on
/// the main queue.
#if canImport(ObjectiveC)
@objc(CometChatPushNotifications)
#endif
public final class CometChatPushNotifications: NSObject, @unchecked Sendable {
    // @unchecked: mutable state lives in `state` (lock-protected) or in the `TokenLifecycle` actor.

    /// The SDK, on the live platform. Not in app extensions: the Notification Service
    /// Extension's base class makes its own instance.
    @available(iOSApplicationExtension, unavailable)
    public static let shared = CometChatPushNotifications(platform: .live)

    let platform: PNPlatform
    let tracker = WorkTracker()
    let jobs: OrderedJobs
    let lifecycle: TokenLifecycle
    let notifications = NotificationHandling()
    /// The edits and deletions applied, with the tombstones of deleted messages.
    let messageChanges: MessageChangeLedger
    /// The catch-up on the changes feed.
    let catchUp: ChangesCatchUp
    /// Reports the conversation on screen to a self-hosted service (issue 31).
    let activity: ActivityReporter
    /// Whether this process recorded that it opened a private push (for the diagnostics).
    let privatePushOpenRecorded = PNLocked(false)

    /// What the facade alone knows. The client API, the session that registers tokens and its
    /// origin, the active session's keychain items and the saved configuration belong to
    /// `lifecycle`, which applies `initialize` and logins in order; the facade reads them there.
    struct State {
        weak var delegate: CometChatPushNotificationsDelegate?
        /// The configuration `initialize` accepted (answers calls at once; `lifecycle` applies it
        /// in order).
        var config: PNConfiguration?
        var configurationProblem: String?
        /// The keychain item of the app's own login (`setSession`), restored on the next launch.
        var vault: SessionVault
        /// The app's own login.
        var appSession: PNSession?
        var products: [PNProductModule] = []
        var delegateObservers: [@Sendable () -> Void] = []
        var apnsRegistrationFailure: String?
        var keychainFailure: PNSecureStoreError?
    }
    let state: PNLocked<State>

    /// Creates an SDK instance on `platform`. Apps use ``shared``; tests create instances on the
    /// simulated platform of `CometChatPushNotificationsTesting`.
    public init(platform: PNPlatform) {
        self.platform = platform
        let tracker = self.tracker
        jobs = OrderedJobs(tracker: tracker)
        messageChanges = MessageChangeLedger(store: platform.store, clock: platform.clock)
        catchUp = ChangesCatchUp(store: platform.store, clock: platform.clock, logger: platform.logger)
        let box = WeakBox()
        let vault = SessionVault(secure: platform.secureStore(nil)) { box.sdk?.keychainRefused($0) }
        state = PNLocked(State(vault: vault, appSession: vault.appSession))
        let lifecycle = TokenLifecycle(
            platform: platform, tracker: tracker,
            events: TokenLifecycleEvents(
                registered: { platform in box.sdk?.notifyDelegate { $0.pnOnPushTokenRegistered(platform) } },
                registrationFailed: { platform, error in
                    box.sdk?.notifyDelegate { $0.pnOnPushTokenRegistrationFailed(platform, error) }
                },
                sessionEnded: { previous in await box.sdk?.sessionDidEnd(previous) },
                sessionAdopted: { _ in
                    box.sdk?.scheduleCatchUp()
                    box.sdk?.activity.trigger()
                },
                keychainRefused: { box.sdk?.keychainRefused($0) }
            ))
        self.lifecycle = lifecycle
        activity = ActivityReporter(
            clock: platform.clock, logger: platform.logger, tracker: tracker, application: platform.application,
            wanted: { await box.sdk?.activityTarget() },
            sessionRejected: { session in await lifecycle.sessionRejected(session) })
        super.init()
        box.sdk = self
    }

    /// Cached tokens and registration outcomes, as the lifecycle keeps them.
    var tokenStore: TokenStore { lifecycle.tokenStore }

    /// The keychain refused to save the session: log it and keep it for the diagnostics.
    func keychainRefused(_ error: PNSecureStoreError) {
        state.withLock { $0.keychainFailure = error }
        platform.logger.log(.error, "The session could not be saved to the keychain: \(error.description).")
    }

    /// Lets the lifecycle's callbacks reach the SDK without a retain cycle.
    private final class WeakBox: @unchecked Sendable {
        // @unchecked: written once in init, before any callback can run.
        weak var sdk: CometChatPushNotifications?
    }

    // MARK: Delegate

    /// Receives taps and token outcomes. Held weakly: keep a strong reference to it.
    public weak var delegate: CometChatPushNotificationsDelegate? {
        get { state.withLock { $0.delegate } }
        set {
            let observers = state.withLock { state -> [@Sendable () -> Void] in
                state.delegate = newValue
                return state.delegateObservers
            }
            if newValue != nil { observers.forEach { $0() } }
        }
    }

    /// Runs `call` on the callback queue with the delegate, if one is set.
    func notifyDelegate(_ call: @escaping @Sendable (CometChatPushNotificationsDelegate) -> Void) {
        tracker.begin()
        platform.callbackQueue.async { [weak self] in
            defer { self?.tracker.end() }
            guard let delegate = self?.delegate else { return }
            call(delegate)
        }
    }

    /// Runs `body` on the callback queue.
    func onCallbackQueue(_ body: @escaping @Sendable () -> Void) {
        tracker.begin()
        let tracker = self.tracker
        platform.callbackQueue.async {
            body()
            tracker.end()
        }
    }

    // MARK: Initialise

    /// Initialises the SDK: validates and saves the configuration, asks for notification
    /// permission and registers for remote notifications (unless
    /// `requestNotificationPermission` is off), installs every linked product, and registers
    /// the cached tokens if someone is already logged in.
    ///
    /// A blank `appId` or `region` is logged and shown in ``getDiagnostics()``; every later
    /// call then answers ``PNError/Code-swift.enum/notInitialised``.
    public func initialize(config: PNConfiguration) {
        installNotificationCenter()
        if let problem = config.validationProblem {
            state.withLock {
                $0.config = nil
                $0.configurationProblem = problem
            }
            platform.logger.log(.error, "initialize(config:) rejected the configuration: \(problem)")
            return
        }
        guard let baseURL = ClientAPI.baseURL(appId: config.appId, region: config.region, clientHost: config.clientHost) else {
            let problem = "PNConfiguration.clientHost is not a host or a URL."
            state.withLock {
                $0.config = nil
                $0.configurationProblem = problem
            }
            platform.logger.log(.error, "initialize(config:) rejected the configuration: \(problem)")
            return
        }
        if config.usableProviderId == nil {
            platform.logger.log(.warning, "PNConfiguration.providerId is missing: push tokens cannot be registered.")
        }
        let api = ClientAPI(baseURL: baseURL, appId: config.appId, transport: platform.transport)
        let vault = SessionVault(secure: platform.secureStore(config.extensionGroupID)) { [weak self] in
            self?.keychainRefused($0)
        }
        let isFirstInitialize = state.withLock { state -> Bool in
            let first = state.config == nil
            state.config = config
            state.configurationProblem = nil
            if state.vault.appSession != nil, vault.appSession == nil { vault.appSession = state.vault.appSession }
            state.vault = vault
            if state.appSession == nil { state.appSession = vault.appSession }
            return first
        }
        if isFirstInitialize {
            installProducts(config)
            platform.sessionBridge.observeChanges { [weak self] in self?.refreshSession() }
            platform.application.observeForeground { [weak self] in
                self?.scheduleCatchUp()
                self?.activity.trigger()
            }
            platform.application.observeBackground { [weak self] in self?.activity.trigger() }
        }

        let resolved = resolveSession(config)
        let lifecycle = self.lifecycle
        jobs.submit { await lifecycle.configure(config, api: api, session: resolved?.0, origin: resolved?.1) }

        if config.requestNotificationPermission {
            let platform = self.platform
            tracker.begin()
            Task { [tracker] in
                defer { tracker.end() }
                _ = await platform.permissions.requestPermission()
                platform.application.registerForRemoteNotifications()
            }
        }
    }

    private func installProducts(_ config: PNConfiguration) {
        let already = Set(state.withLock { $0.products.map { ObjectIdentifier(type(of: $0)) } })
        let unlinked = platform.productPorts.unlinkedProducts
        for type in ProductDiscovery.linkedProducts()
        where !already.contains(ObjectIdentifier(type)) && !unlinked.contains(type.moduleName) {
            let product = type.init()
            state.withLock { $0.products.append(product) }
            product.install(into: self, config: config)
            platform.logger.log(.info, "Installed \(type.moduleName).")
        }
        installProductCategories()
    }

    /// The configuration `initialize` accepted, or `nil`.
    var configuration: PNConfiguration? { state.withLock { $0.config } }

    /// The session that registers tokens now, from the session sources (see `SessionResolver`).
    func resolveSession(_ config: PNConfiguration) -> (PNSession, PNSession.Origin)? {
        let appSession = state.withLock { $0.appSession }
        return SessionResolver(bridge: platform.sessionBridge)
            .resolve(registrar: config.tokenRegistrar, appSession: appSession, configToken: config.authToken)
    }

    /// Completes `completion` with `.notInitialised` when `initialize` has not accepted a configuration.
    func requireInitialised<T>(_ completion: (@Sendable (PNResult<T>) -> Void)?) -> PNConfiguration? {
        switch initialisedConfiguration() {
        case .success(let config): return config
        case .failure(let error):
            fail(completion, error)
            return nil
        }
    }
}

extension CometChatPushNotifications {
    /// Whether `initialize(config:)` accepted a configuration.
    @_spi(PNProducts)
    public var isInitialised: Bool { configuration != nil }

    /// Work accepted and not finished (queued calls, requests, retries, pending callbacks).
    @_spi(PNProducts)
    public var pendingWork: Int { tracker.pending }

    /// Counts product work (a reply being sent, a call being reported) as pending.
    @_spi(PNProducts)
    public func beginWork() { tracker.begin() }

    /// Ends work started with ``beginWork()``.
    @_spi(PNProducts)
    public func endWork() { tracker.end() }

    /// The platform the SDK runs on.
    @_spi(PNProducts)
    public var runtimePlatform: PNPlatform { platform }

    /// The process is gone (the simulator killed the app): stop retries and ignore later calls.
    @_spi(PNProducts)
    public func terminate() {
        activity.stop()
        let lifecycle = self.lifecycle
        jobs.submit { await lifecycle.terminate() }
    }
}
