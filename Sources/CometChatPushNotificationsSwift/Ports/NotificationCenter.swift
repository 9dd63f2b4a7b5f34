import Foundation

/// What the SDK needs from the notification center (`UNUserNotificationCenter` on iOS).
///
/// iOS allows one delegate; the SDK becomes it in `initialize` (rule 1: before launch ends,
/// or the launching tap is lost). Apps that keep their own delegate forward to the SDK.
public protocol PNNotificationCenter: Sendable {
    /// Replaces every category of the app with `categories` (iOS keeps only the last set).
    func setCategories(_ categories: [PNNotificationCategory])
    /// Makes `events` receive foreground notifications and responses from now on.
    func becomeDelegate(_ events: PNNotificationCenterEvents)
    /// Shows a local notification now; `completion` gets the error if it could not be added.
    func add(_ request: PNLocalNotificationRequest, completion: @escaping @Sendable ((any Error)?) -> Void)
    /// Removes delivered notifications from Notification Center.
    func removeDeliveredNotifications(identifiers: [String])
    /// The notifications in Notification Center (`getDeliveredNotifications`), from any thread.
    func deliveredNotifications(completion: @escaping @Sendable ([PNNotification]) -> Void)
}

extension PNNotificationCenter {
    /// None: a notification center that cannot list what it shows (an app's own port written
    /// before the SDK needed the list) removes nothing by conversation.
    public func deliveredNotifications(completion: @escaping @Sendable ([PNNotification]) -> Void) {
        completion([])
    }
}

/// The notification center's delegate calls, each carrying the completion handler iOS expects
/// to be called.
public struct PNNotificationCenterEvents: Sendable {
    /// A notification arrived while the app is in the foreground; answer how to present it.
    public var willPresent: @Sendable (PNNotification, @escaping @Sendable (PNPresentationOptions) -> Void) -> Void
    /// The user acted on a notification; call the completion when done (rule 22).
    public var didReceive: @Sendable (PNNotificationResponse, @escaping @Sendable () -> Void) -> Void

    /// Creates the events.
    public init(
        willPresent: @escaping @Sendable (PNNotification, @escaping @Sendable (PNPresentationOptions) -> Void) -> Void,
        didReceive: @escaping @Sendable (PNNotificationResponse, @escaping @Sendable () -> Void) -> Void
    ) {
        self.willPresent = willPresent
        self.didReceive = didReceive
    }
}

/// No notification center (a command-line process, the headless platform): nothing is shown.
public struct PNNoNotificationCenter: PNNotificationCenter {
    /// Creates it.
    public init() {}
    /// Does nothing.
    public func setCategories(_ categories: [PNNotificationCategory]) {}
    /// Does nothing: no events arrive.
    public func becomeDelegate(_ events: PNNotificationCenterEvents) {}
    /// Completes without showing anything.
    public func add(_ request: PNLocalNotificationRequest, completion: @escaping @Sendable ((any Error)?) -> Void) {
        completion(nil)
    }
    /// Does nothing.
    public func removeDeliveredNotifications(identifiers: [String]) {}
}
