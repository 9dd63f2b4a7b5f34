import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// What APNs does when the app registers for remote notifications (rules 6–7).
public enum SimulatedAPNsBehaviour: Sendable, Equatable {
    /// Issues this token (bytes).
    case issue(Data)
    /// Fails, as without the Push Notifications entitlement or on the Simulator.
    case fail(String)
    /// Never answers.
    case silent
}

/// The application object of the simulated device: state, badge, background modes, remote
/// registration and background tasks.
public final class SimulatedApplication: PNApplication, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.
    struct State {
        var appState: PNApplicationState = .inactive
        var badge = 0
        var badgeHistory: [Int] = []
        var backgroundModes: Set<String>
        var remoteRegistrations = 0
        var nextTask = 1
        var openTasks: [Int: String] = [:]
        var endedTasks: [String] = []
        var expirations: [Int: @Sendable () -> Void] = [:]
        var foregroundHandlers: [@Sendable () -> Void] = []
        var backgroundHandlers: [@Sendable () -> Void] = []
    }

    let state: PNLocked<State>
    /// Called when the app registers for remote notifications; the device answers through it.
    var onRegisterForRemoteNotifications: @Sendable () -> Void = {}
    /// iOS kills the app, for the reason given.
    var onKill: @Sendable (String) -> Void = { _ in }

    init(backgroundModes: Set<String>, badge: Int) {
        state = PNLocked(State(badge: badge, backgroundModes: backgroundModes))
    }

    /// The current state.
    public func applicationState() -> PNApplicationState { state.withLock { $0.appState } }

    /// Counts the call and lets the device answer with a token or an error.
    public func registerForRemoteNotifications() {
        state.withLock { $0.remoteRegistrations += 1 }
        onRegisterForRemoteNotifications()
    }

    /// Sets the badge.
    public func setBadgeCount(_ count: Int) {
        state.withLock {
            $0.badge = count
            $0.badgeHistory.append(count)
        }
    }

    /// The declared background modes.
    public func backgroundModes() -> Set<String> { state.withLock { $0.backgroundModes } }

    /// Keeps `handler` for each return from the background to the foreground.
    public func observeForeground(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.foregroundHandlers.append(handler) }
    }

    /// Keeps `handler` for each move from the foreground to the background.
    public func observeBackground(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.backgroundHandlers.append(handler) }
    }

    /// The app goes to the background; coming from the foreground, iOS posts
    /// `didEnterBackground` once it is there.
    func enterBackground() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            defer { state.appState = .background }
            return state.appState == .background ? [] : state.backgroundHandlers
        }
        for handler in handlers { handler() }
    }

    /// The app becomes active; coming from the background, iOS posts `willEnterForeground` first.
    func becomeActive() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            defer { state.appState = .active }
            return state.appState == .background ? state.foregroundHandlers : []
        }
        for handler in handlers { handler() }
    }

    /// Opens a background task.
    public func beginBackgroundTask(name: String, expiration: @escaping @Sendable () -> Void) async -> Int {
        state.withLock {
            let id = $0.nextTask
            $0.nextTask += 1
            $0.openTasks[id] = name
            $0.expirations[id] = expiration
            return id
        }
    }

    /// Closes a background task.
    public func endBackgroundTask(_ identifier: Int) {
        state.withLock {
            if let name = $0.openTasks.removeValue(forKey: identifier) { $0.endedTasks.append(name) }
            $0.expirations[identifier] = nil
        }
    }

    /// Background tasks still open, by name.
    public var openBackgroundTasks: [String] { state.withLock { Array($0.openTasks.values) } }

    /// Background tasks ended, by name, in the order they ended.
    public var endedBackgroundTasks: [String] { state.withLock { $0.endedTasks } }

    /// Runs out the time of every open background task: each expiration handler runs, and must
    /// end its task before it returns, or iOS kills the app (rule 27).
    public func expireBackgroundTasks() {
        let handlers = state.withLock { state -> [(Int, @Sendable () -> Void)] in
            let handlers = state.expirations.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            state.expirations.removeAll()
            return handlers
        }
        for (identifier, handler) in handlers {
            handler()
            if let name = state.withLock({ $0.openTasks[identifier] }) {
                onKill("the expiration handler of the background task \"\(name)\" returned without ending it")
                return
            }
        }
    }
}

/// Notification permission of the simulated device (rule 23: the prompt shows once).
public final class SimulatedPermissions: PNNotificationPermissions, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.
    struct State {
        var permission: PNNotificationPermission
        var answer: PNNotificationPermission
        var prompts = 0
    }
    let state: PNLocked<State>
    private let prompted: @Sendable () -> Void

    init(permission: PNNotificationPermission, answer: PNNotificationPermission, prompted: @escaping @Sendable () -> Void = {}) {
        state = PNLocked(State(permission: permission, answer: answer))
        self.prompted = prompted
    }

    /// The current permission.
    public func currentPermission() async -> PNNotificationPermission { state.withLock { $0.permission } }

    /// Shows the prompt only while the permission is not determined.
    public func requestPermission() async -> PNNotificationPermission {
        let (permission, shown) = state.withLock { s -> (PNNotificationPermission, Bool) in
            guard s.permission == .notDetermined else { return (s.permission, false) }
            s.prompts += 1
            s.permission = s.answer
            return (s.permission, true)
        }
        if shown { prompted() }
        return permission
    }
}

/// CometChat Chat and Calls SDKs as the session bridge sees them.
public final class SimulatedCometChatSDKs: PNSessionBridge, @unchecked Sendable {
    // @unchecked: all mutable state is inside `sessions`.
    private let sessions = PNLocked<(chat: PNSession?, calls: PNSession?)>((nil, nil))

    /// The Chat SDK's session.
    public func chatSDKSession() -> PNSession? { sessions.withLock { $0.chat } }
    /// The Calls SDK's session.
    public func callsSDKSession() -> PNSession? { sessions.withLock { $0.calls } }

    func setChat(_ session: PNSession?) { sessions.withLock { $0.chat = session } }
    func setCalls(_ session: PNSession?) { sessions.withLock { $0.calls = session } }
}

/// Log lines the SDK wrote.
public final class RecordingLogger: PNLogger, @unchecked Sendable {
    // @unchecked: all mutable state is inside `lines`.
    private let lines = PNLocked<[String]>([])
    /// Creates an empty log.
    public init() {}
    /// Records a line.
    public func log(_ level: PNLogLevel, _ message: String) { lines.withLock { $0.append("\(level): \(message)") } }
    /// Every line, in order.
    public var all: [String] { lines.current }
}
