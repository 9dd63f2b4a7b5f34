#if canImport(UIKit) && canImport(UserNotifications)
import Foundation
import UIKit
import UserNotifications

/// ``PNApplication`` on `UIApplication`. UIKit is main-actor bound, so calls from other
/// threads hop to the main actor; the app state is tracked from UIKit's notifications so it can
/// be read from any thread. Not for app extensions (see `AppExtensionApplication`).
@available(iOSApplicationExtension, unavailable)
final class UIApplicationAdapter: PNApplication, @unchecked Sendable {
    // @unchecked: `state` and the handlers are lock-protected; `observers` is only written in init.
    private let state = PNLocked<PNApplicationState>(.inactive)
    private let foregroundHandlers = PNLocked<[@Sendable () -> Void]>([])
    private let backgroundHandlers = PNLocked<[@Sendable () -> Void]>([])
    private var observers: [NSObjectProtocol] = []

    init() {
        let center = NotificationCenter.default
        let names: [(String, PNApplicationState)] = [
            ("UIApplicationDidBecomeActiveNotification", .active),
            ("UIApplicationWillResignActiveNotification", .inactive),
            ("UIApplicationDidEnterBackgroundNotification", .background),
            ("UIApplicationWillEnterForegroundNotification", .inactive),
        ]
        for (name, newState) in names {
            let observer = center.addObserver(forName: Notification.Name(name), object: nil, queue: nil) { [state] _ in
                state.withLock { $0 = newState }
            }
            observers.append(observer)
        }
        let foreground = center.addObserver(
            forName: Notification.Name("UIApplicationWillEnterForegroundNotification"), object: nil, queue: nil
        ) { [foregroundHandlers] _ in
            for handler in foregroundHandlers.current { handler() }
        }
        observers.append(foreground)
        // After the state's observer: a handler reads the state as `.background`.
        let background = center.addObserver(
            forName: Notification.Name("UIApplicationDidEnterBackgroundNotification"), object: nil, queue: nil
        ) { [backgroundHandlers] _ in
            for handler in backgroundHandlers.current { handler() }
        }
        observers.append(background)
        Task { @MainActor [state] in
            let current = Self.convert(UIApplication.shared.applicationState)
            state.withLock { $0 = current }
        }
    }

    @MainActor
    private static func convert(_ state: UIApplication.State) -> PNApplicationState {
        switch state {
        case .active: return .active
        case .background: return .background
        case .inactive: return .inactive
        @unknown default: return .inactive
        }
    }

    func applicationState() -> PNApplicationState { state.current }

    func observeForeground(_ handler: @escaping @Sendable () -> Void) {
        foregroundHandlers.withLock { $0.append(handler) }
    }

    func observeBackground(_ handler: @escaping @Sendable () -> Void) {
        backgroundHandlers.withLock { $0.append(handler) }
    }

    func registerForRemoteNotifications() {
        Task { @MainActor in UIApplication.shared.registerForRemoteNotifications() }
    }

    func setBadgeCount(_ count: Int) {
        if #available(iOS 16.0, *) {
            UNUserNotificationCenter.current().setBadgeCount(count, withCompletionHandler: nil)
        } else {
            Task { @MainActor in UIApplication.shared.applicationIconBadgeNumber = count }
        }
    }

    func backgroundModes() -> Set<String> {
        Set(Bundle.main.object(forInfoDictionaryKey: "UIBackgroundModes") as? [String] ?? [])
    }

    func beginBackgroundTask(name: String, expiration: @escaping @Sendable () -> Void) async -> Int {
        await MainActor.run {
            UIApplication.shared.beginBackgroundTask(withName: name, expirationHandler: expiration).rawValue
        }
    }

    func endBackgroundTask(_ identifier: Int) {
        let task = UIBackgroundTaskIdentifier(rawValue: identifier)
        if Thread.isMainThread {
            // The expiration handler runs here: the task must end before it returns.
            Self.onMainThreadNow { UIApplication.shared.endBackgroundTask(task) }
        } else {
            Task { @MainActor in UIApplication.shared.endBackgroundTask(task) }
        }
    }

    /// Runs `body` now, on the main thread the caller is on: what `MainActor.assumeIsolated` does,
    /// which the iOS 16.4 SDK's standard library (the one CI compiles against) does not declare.
    private static func onMainThreadNow(_ body: @MainActor () -> Void) {
        dispatchPrecondition(condition: .onQueue(.main))
        withoutActuallyEscaping(body) { body in unsafeBitCast(body, to: (() -> Void).self)() }
    }
}
#endif
