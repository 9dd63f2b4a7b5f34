import Foundation

/// The state of the app process, as iOS reports it.
public enum PNApplicationState: String, Sendable {
    /// In the foreground and receiving events.
    case active
    /// In the foreground but not receiving events (launching, a system alert).
    case inactive
    /// In the background.
    case background
}

/// What the SDK needs from the application object (`UIApplication` on iOS).
public protocol PNApplication: Sendable {
    /// The app's current state.
    func applicationState() -> PNApplicationState
    /// Asks APNs for a device token; it arrives through `registerDeviceToken(_:)`.
    func registerForRemoteNotifications()
    /// Sets the app icon badge; 0 clears it.
    func setBadgeCount(_ count: Int)
    /// The `UIBackgroundModes` declared in Info.plist (`remote-notification`, `voip`, …).
    func backgroundModes() -> Set<String>
    /// Asks for time to finish work in the background; returns an identifier for
    /// ``endBackgroundTask(_:)``. `expiration` runs if the time runs out first (on the main
    /// thread on iOS): it must end the task before it returns, or iOS kills the app.
    func beginBackgroundTask(name: String, expiration: @escaping @Sendable () -> Void) async -> Int
    /// Ends a background task started with ``beginBackgroundTask(name:expiration:)``. Synchronous,
    /// so an expiration handler can end its task before it returns.
    func endBackgroundTask(_ identifier: Int)
    /// Calls `handler` each time the app returns from the background to the foreground
    /// (`UIApplication.willEnterForegroundNotification`), from any thread. Called once, from
    /// `initialize`.
    func observeForeground(_ handler: @escaping @Sendable () -> Void)
    /// Calls `handler` each time the app leaves the foreground for the background
    /// (`UIApplication.didEnterBackgroundNotification`), from any thread. Called once, from
    /// `initialize`.
    func observeBackground(_ handler: @escaping @Sendable () -> Void)
}

extension PNApplication {
    /// Observes nothing: an application object without a foreground (an app extension), or one
    /// written before the SDK needed it.
    public func observeForeground(_ handler: @escaping @Sendable () -> Void) {}

    /// Observes nothing: an application object that never leaves the foreground (an app
    /// extension), or one written before the SDK needed it.
    public func observeBackground(_ handler: @escaping @Sendable () -> Void) {}
}
