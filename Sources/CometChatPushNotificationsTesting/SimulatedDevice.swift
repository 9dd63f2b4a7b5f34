import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// A simulated iPhone for scenario tests: storage that survives relaunches (UserDefaults, App
/// Group containers, the keychain), APNs registration, notification permission, CometChat
/// SDK logins, a push service that checks the wire contract, and virtual time.
///
/// ```swift
/// let device = SimulatedDevice()
/// let app = device.launch { sdk in
///     sdk.initialize(config: PNConfiguration(appId: "app", region: "us", providerId: "apns"))
/// }
/// device.logInToChatSDK(uid: "alice", authToken: "alice-token")
/// await device.settle()
/// #expect(device.service.registrations(authToken: "alice-token").count == 1)
/// ```
public final class SimulatedDevice: @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.

    /// Virtual time.
    public let clock: SimulatedClock
    /// The push service the SDK talks to (unless the device was given another transport).
    public let service: SimulatedPushService
    /// A real transport to use instead of ``service`` (end-to-end tests against a running service).
    private let transport: PNHTTPTransport?
    /// Plain storage (survives relaunch).
    public let defaults = SimulatedDefaults()
    /// The keychain (survives relaunch).
    public let keychain = SimulatedKeychain()
    /// The app's, the extension's and the App Groups' containers: real directories (survive
    /// relaunch).
    public let containers: SimulatedContainers
    /// The CometChat Chat and Calls SDKs' logins.
    public let cometChatSDKs = SimulatedCometChatSDKs()
    /// Every log line of every process.
    public let logger = RecordingLogger()
    /// The notification center: categories, its delegate, Notification Center's list.
    public let notificationCenter = SimulatedNotificationCenter()
    /// Ports of the Chat and Calls products' simulators, for the processes launched from now on.
    let productPorts = PNLocked(PNProductPorts())
    /// The calling side of the device, once ``calls`` was used.
    let callsSimulator = PNLocked<SimulatedCalls?>(nil)

    struct State {
        var app: SimulatedApp?
        var apns: SimulatedAPNsBehaviour
        var permission: PNNotificationPermission
        var promptAnswer: PNNotificationPermission
        var backgroundModes: Set<String>
        var badge = 0
        var launches = 0
        var processes = 0
        var permissionPrompts = 0
        var lastLaunch: LaunchRecipe?
        var kills: [String] = []
        var violations: [String] = []
        var forceQuit = false
        var throttleBackgroundPushes = false
        var backgroundPushes: [SimulatedBackgroundPush] = []
    }
    let state: PNLocked<State>

    /// Creates a device whose app has not run yet.
    ///
    /// - Parameters:
    ///   - apns: what APNs does when the app registers (default: issues a 32-byte token).
    ///   - permission: the notification permission before the app asks.
    ///   - promptAnswer: what the user answers when the prompt shows.
    ///   - backgroundModes: the app's `UIBackgroundModes`.
    ///   - transport: a real HTTP transport (for example `PNPlatform.live.transport`) to talk to a
    ///     running push service instead of the simulated one.
    ///   - containers: the containers' directories (default: a fresh temporary directory).
    ///   - apnsEnvironment: the APNs environment of the app's provisioning profile (`"sandbox"`,
    ///     `"production"`), or `nil` when the app cannot tell (the default).
    public init(
        apns: SimulatedAPNsBehaviour = .issue(SimulatedDevice.token(1)),
        permission: PNNotificationPermission = .notDetermined,
        promptAnswer: PNNotificationPermission = .authorized,
        backgroundModes: Set<String> = ["remote-notification"],
        clock: SimulatedClock = SimulatedClock(),
        transport: PNHTTPTransport? = nil,
        containers: SimulatedContainers = SimulatedContainers(),
        apnsEnvironment: String? = nil
    ) {
        self.apnsEnvironment = apnsEnvironment
        self.clock = clock
        self.containers = containers
        service = SimulatedPushService(clock: clock)
        self.transport = transport
        state = PNLocked(State(apns: apns, permission: permission, promptAnswer: promptAnswer, backgroundModes: backgroundModes))
        installIdleCallsPorts()
        installChatPorts()
        notificationCenter.setLocalPresenter { [weak self] request, notification in self?.presentLocal(request, notification) }
    }

    /// The APNs environment the app's profile names, if any.
    public let apnsEnvironment: String?

    /// The languages of the device's settings, most preferred first, as `Locale.preferredLanguages`
    /// gives them (default `["en-US", "en"]`). The app reads them whenever the SDK asks, so a
    /// change shows at the next registration; on a phone iOS relaunches the app when they change,
    /// which a test plays with ``launch(_:)``. A German device: `["de-CH", "de", "en"]`.
    public var preferredLanguages: [String] {
        get { languages.current }
        set { languages.withLock { $0 = newValue } }
    }
    private let languages = PNLocked<[String]>(["en-US", "en"])

    /// A 32-byte APNs token made of `seed`.
    public static func token(_ seed: UInt8) -> Data { Data((0..<32).map { seed &+ UInt8($0) }) }

    /// The running app, if any.
    public var app: SimulatedApp? { state.withLock { $0.app } }

    /// How many times the app has been launched.
    public var launchCount: Int { state.withLock { $0.launches } }

    /// The app icon badge (survives relaunch).
    public var badge: Int { app?.application.state.withLock { $0.badge } ?? state.withLock { $0.badge } }

    /// Every time iOS killed the app for breaking one of its rules, and why. A correct app has none.
    public var kills: [String] { state.withLock { $0.kills } }

    /// Broken iOS rules that iOS does not kill the app for, but that a device would show (a
    /// completion handler called twice, a request from a process iOS had ended). A correct app
    /// has none.
    public var violations: [String] { state.withLock { $0.violations } }

    /// How many times the notification permission prompt has shown since the app was installed
    /// (rule 23: once).
    public var permissionPrompts: Int { state.withLock { $0.permissionPrompts } }

    /// The notification permission the last process left behind.
    var storedPermission: PNNotificationPermission { state.withLock { $0.permission } }

    /// App Groups the app and its extension lack the entitlement for.
    private let unentitledGroups = PNLocked<Set<String>>([])

    /// The app and its extension lack the App Group entitlement for `group` (a capability not
    /// added, a typo in the group id): iOS gives no shared container for it, a defaults suite of
    /// that name stays private to each process, and its keychain access group is refused.
    public func removeAppGroupEntitlement(_ group: String) {
        unentitledGroups.withLock { _ = $0.insert(group) }
        keychain.removeEntitlement(accessGroup: group)
    }

    /// Whether the app and its extension are entitled to the App Group `group`.
    public func isEntitled(toAppGroup group: String) -> Bool { !unentitledGroups.current.contains(group) }

    /// The container directory a process gets for `group` (`nil`: its own, `own`).
    func containerDirectory(_ group: String?, own: URL) -> URL? {
        guard let group else { return own }
        return isEntitled(toAppGroup: group) ? containers.appGroup(group) : nil
    }

    func recordViolation(_ text: String) { state.withLock { $0.violations.append(text) } }

    /// iOS kills the app: the process ends, for `reason`.
    func kill(_ reason: String) {
        state.withLock { $0.kills.append(reason) }
        terminate()
    }

    /// A new process of the app or of the extension.
    func makeProcess(_ kind: String) -> SimulatedProcess {
        let number = state.withLock { s -> Int in
            s.processes += 1
            return s.processes
        }
        return SimulatedProcess(name: "\(kind) process #\(number)")
    }

    /// The platform a process of the app sees.
    public func makePlatform(application: SimulatedApplication, permissions: SimulatedPermissions) -> PNPlatform {
        makePlatform(application: application, permissions: permissions, process: makeProcess("app"))
    }

    /// The platform `process` sees: its requests stop when it ends.
    func makePlatform(
        application: SimulatedApplication, permissions: SimulatedPermissions, process: SimulatedProcess
    ) -> PNPlatform {
        let defaults = self.defaults
        let keychain = self.keychain
        let languages = self.languages
        let network = SimulatedProcessTransport(base: transport ?? service, process: process) { [weak self] in
            self?.recordViolation($0)
        }
        return PNPlatform(
            store: defaults.store(suite: SimulatedDefaults.standardSuite),
            sharedStore: { [weak self] group in
                // Without the entitlement the suite is the process's own: nothing is shared.
                self?.isEntitled(toAppGroup: group) == false
                    ? defaults.store(suite: "\(process.name) private \(group)") : defaults.store(suite: group)
            },
            secureStore: { keychain.store(accessGroup: $0) },
            transport: network,
            clock: clock,
            application: application,
            permissions: permissions,
            sessionBridge: cometChatSDKs,
            logger: logger,
            callbackQueue: .main,
            timeZoneIdentifier: { "Europe/Berlin" },
            productPorts: productPorts.current,
            notificationCenter: notificationCenter,
            apnsEnvironment: { [apnsEnvironment] in apnsEnvironment },
            preferredLanguages: { languages.current })
    }

    /// Launches the app: a new process with a new SDK instance on the device's storage.
    /// `didFinishLaunching` plays `application(_:didFinishLaunchingWithOptions:)`; iOS runs it
    /// again when it launches the app in the background itself (a VoIP push to a killed app).
    @discardableResult
    public func launch(_ didFinishLaunching: @escaping (CometChatPushNotifications) -> Void = { _ in }) -> SimulatedApp {
        state.withLock { $0.forceQuit = false }
        return launch(LaunchRecipe(didFinishLaunching), background: false)
    }

    /// iOS launches the app into the background with the last `didFinishLaunching`, as it does for
    /// a VoIP push when the app is not running. Returns `nil` when the app never ran.
    func launchInBackground() -> SimulatedApp? {
        guard let recipe = state.withLock({ $0.lastLaunch }) else { return nil }
        return launch(recipe, background: true)
    }

    private func launch(_ recipe: LaunchRecipe, background: Bool) -> SimulatedApp {
        terminate()
        let (badge, modes, permission, answer) = state.withLock { ($0.badge, $0.backgroundModes, $0.permission, $0.promptAnswer) }
        let application = SimulatedApplication(backgroundModes: modes, badge: badge)
        let permissions = SimulatedPermissions(permission: permission, answer: answer) { [weak self] in
            self?.state.withLock { $0.permissionPrompts += 1 }
        }
        let process = makeProcess("app")
        let sdk = CometChatPushNotifications(
            platform: makePlatform(application: application, permissions: permissions, process: process))
        let app = SimulatedApp(device: self, sdk: sdk, application: application, permissions: permissions, process: process)
        application.onKill = { [weak self] reason in self?.kill(reason) }
        application.onRegisterForRemoteNotifications = { [weak self, weak app] in
            guard let self, let app else { return }
            self.answerRemoteRegistration(app)
        }
        state.withLock {
            $0.app = app
            $0.launches += 1
            $0.lastLaunch = recipe
        }
        recipe.didFinishLaunching(sdk)
        application.state.withLock { $0.appState = background ? .background : .active }
        return app
    }

    /// Kills the app process (its SDK instance stops; storage stays).
    public func terminate() {
        guard
            let app = state.withLock({ state -> SimulatedApp? in
                let app = state.app
                state.app = nil
                return app
            })
        else { return }
        app.process.end()
        notificationCenter.processEnded()
        productProcessEnded()
        let (badge, permission) = (app.application.state.withLock { $0.badge }, app.permissions.state.withLock { $0.permission })
        state.withLock {
            $0.badge = badge
            $0.permission = permission
        }
        app.sdk.terminate()
    }

    private func answerRemoteRegistration(_ app: SimulatedApp) {
        switch state.withLock({ $0.apns }) {
        case .issue(let token): app.sdk.registerDeviceToken(token)
        case .fail(let reason): app.sdk.handleRegistrationFailure(SimulatedError(reason: reason))
        case .silent: break
        }
    }

    /// APNs issues a new token (reinstall, restore, OS update). A running app receives it now,
    /// as iOS may call `didRegisterForRemoteNotificationsWithDeviceToken` at any time.
    public func rotateAPNsToken(to token: Data) {
        state.withLock { $0.apns = .issue(token) }
        if let app { app.sdk.registerDeviceToken(token) }
    }

    /// iOS sets the badge from a payload's `aps.badge` (rule 21), whether the app runs or not.
    func setSystemBadge(_ count: Int) {
        if let app {
            app.application.state.withLock { $0.badge = count }
        } else {
            state.withLock { $0.badge = count }
        }
    }

    /// Changes what APNs does at the next registration.
    public func setAPNs(_ behaviour: SimulatedAPNsBehaviour) { state.withLock { $0.apns = behaviour } }

    /// The user logs in to the CometChat Chat SDK. The SDK notices it as its session poll would.
    public func logInToChatSDK(uid: String, authToken: String) {
        cometChatSDKs.setChat(PNSession(uid: uid, authToken: authToken))
        app?.sdk.refreshSession()
    }

    /// The user logs out of the CometChat Chat SDK.
    public func logOutOfChatSDK() {
        cometChatSDKs.setChat(nil)
        app?.sdk.refreshSession()
    }

    /// The user logs in to the CometChat Calls SDK.
    public func logInToCallsSDK(uid: String, authToken: String) {
        cometChatSDKs.setCalls(PNSession(uid: uid, authToken: authToken))
        app?.sdk.refreshSession()
    }

    /// The user logs out of the CometChat Calls SDK.
    public func logOutOfCallsSDK() {
        cometChatSDKs.setCalls(nil)
        app?.sdk.refreshSession()
    }

    /// Extra SDK instances to wait for in ``settle(timeout:)`` (the extension's process).
    let otherProcesses = PNLocked<[CometChatPushNotifications]>([])

    /// Waits until every process has finished the work it accepted (retries waiting past the
    /// clock's auto-advance limit count as finished), and its callbacks have run.
    /// Returns `false` if that did not happen within `timeout` seconds of real time. The
    /// default is generous because it costs nothing when the work finishes: tests run in
    /// parallel, and on a loaded two-core machine a settle waited over 10 s for a thread.
    @discardableResult
    public func settle(timeout: TimeInterval = 60) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var quietRounds = 0
        while Date() < deadline {
            let sdks = (app.map { [$0.sdk] } ?? []) + otherProcesses.current
            let pending = sdks.reduce(0) { $0 + $1.pendingWork }
            if pending == 0 || pending <= clock.suspendedSleepers {
                quietRounds += 1
                if quietRounds >= 3 { return true }
            } else {
                quietRounds = 0
            }
            await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
            try? await Task.sleep(nanoseconds: 300_000)
        }
        return false
    }
}

/// The running app: its SDK instance and its application object.
public final class SimulatedApp: @unchecked Sendable {
    // @unchecked: immutable references to thread-safe objects.
    /// The device it runs on.
    public unowned let device: SimulatedDevice
    /// The app's SDK instance (what `CometChatPushNotifications.shared` is on a device).
    public let sdk: CometChatPushNotifications
    /// The application object.
    public let application: SimulatedApplication
    /// Notification permission.
    public let permissions: SimulatedPermissions

    /// The process it runs in.
    public let process: SimulatedProcess

    init(
        device: SimulatedDevice, sdk: CometChatPushNotifications, application: SimulatedApplication,
        permissions: SimulatedPermissions, process: SimulatedProcess
    ) {
        self.device = device
        self.sdk = sdk
        self.application = application
        self.permissions = permissions
        self.process = process
    }

    /// The app's state.
    public var state: PNApplicationState { application.applicationState() }
    /// The badge.
    public var badge: Int { application.state.withLock { $0.badge } }
    /// How many times the app registered for remote notifications.
    public var remoteRegistrations: Int { application.state.withLock { $0.remoteRegistrations } }
    /// How many times the permission prompt showed in this process (``SimulatedDevice/permissionPrompts``
    /// counts since install).
    public var permissionPrompts: Int { permissions.state.withLock { $0.prompts } }

    /// The user opens the app. Coming from the background, the app is told it enters the
    /// foreground (`willEnterForeground`).
    public func bringToForeground() {
        process.resume()
        application.becomeActive()
        sdk.refreshSession()
    }

    /// The user leaves the app: it goes to the background (`didEnterBackground`).
    public func sendToBackground() { application.enterBackground() }
}

/// An error from the simulated platform.
public struct SimulatedError: Error, LocalizedError, Sendable {
    /// What failed.
    public var reason: String
    /// The reason.
    public var errorDescription: String? { reason }
}

/// The app's `didFinishLaunching`, kept for the launches iOS makes on its own.
final class LaunchRecipe: @unchecked Sendable {
    // @unchecked: called only on the thread that launches the app, like the real callback.
    let didFinishLaunching: (CometChatPushNotifications) -> Void
    init(_ didFinishLaunching: @escaping (CometChatPushNotifications) -> Void) { self.didFinishLaunching = didFinishLaunching }
}
