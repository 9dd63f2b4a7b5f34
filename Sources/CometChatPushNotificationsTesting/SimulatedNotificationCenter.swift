import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The notification center of the simulated device: categories (rule 4: a new set replaces the
/// old one), one delegate (rule 5: the SDK's, or the app's own that forwards), the
/// notifications in Notification Center, and local notification requests.
public final class SimulatedNotificationCenter: PNNotificationCenter, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.

    /// Who is the delegate.
    public enum DelegateOwner: String, Sendable {
        /// The SDK (it became the delegate in `initialize`).
        case sdk
        /// The app's own object, which forwards to the SDK (or not).
        case app
    }

    struct State {
        var categories: [PNNotificationCategory] = []
        var categorySets = 0
        var delegate: (owner: DelegateOwner, events: PNNotificationCenterEvents)?
        var shown: [PNNotification] = []
        var localRequests: [PNLocalNotificationRequest] = []
        var nextIdentifier = 1
    }

    let state = PNLocked(State())

    /// Creates an empty notification center.
    public init() {}

    // MARK: PNNotificationCenter

    /// Replaces every category.
    public func setCategories(_ categories: [PNNotificationCategory]) {
        state.withLock {
            $0.categories = categories
            $0.categorySets += 1
        }
    }

    /// The SDK becomes the delegate, replacing any other.
    public func becomeDelegate(_ events: PNNotificationCenterEvents) {
        state.withLock { $0.delegate = (.sdk, events) }
    }

    /// Records the request and shows it in Notification Center.
    public func add(_ request: PNLocalNotificationRequest, completion: @escaping @Sendable ((any Error)?) -> Void) {
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in request.userInfo { userInfo[key] = value }
        let notification = PNNotification(
            identifier: request.identifier, userInfo: userInfo,
            categoryIdentifier: request.categoryIdentifier ?? "", threadIdentifier: request.threadIdentifier ?? "")
        state.withLock {
            $0.localRequests.append(request)
            $0.shown.removeAll { $0.identifier == request.identifier }
            $0.shown.append(notification)
        }
        completion(nil)
    }

    /// Removes notifications from Notification Center.
    public func removeDeliveredNotifications(identifiers: [String]) {
        state.withLock { $0.shown.removeAll { identifiers.contains($0.identifier) } }
    }

    /// The notifications in Notification Center, as `getDeliveredNotifications` lists them.
    public func deliveredNotifications(completion: @escaping @Sendable ([PNNotification]) -> Void) {
        completion(shownNotifications)
    }

    // MARK: The app's side

    /// The app makes its own object the delegate (after `initialize`), replacing the SDK; it
    /// must forward to `handleWillPresentNotification` and `handleNotificationResponse`.
    public func setAppDelegate(_ events: PNNotificationCenterEvents) {
        state.withLock { $0.delegate = (.app, events) }
    }

    /// The current delegate's owner, or `nil` when nobody is the delegate.
    public var delegateOwner: DelegateOwner? { state.withLock { $0.delegate?.owner } }

    /// The app's categories.
    public var categories: [PNNotificationCategory] { state.withLock { $0.categories } }

    /// How many times the categories were set.
    public var categorySetCount: Int { state.withLock { $0.categorySets } }

    /// The notifications in Notification Center, oldest first.
    public var shownNotifications: [PNNotification] { state.withLock { $0.shown } }

    /// The local notifications the SDK asked for.
    public var localRequests: [PNLocalNotificationRequest] { state.withLock { $0.localRequests } }

    // MARK: Device internals

    var currentDelegate: (owner: DelegateOwner, events: PNNotificationCenterEvents)? { state.withLock { $0.delegate } }

    /// The process ended: iOS forgets its delegate.
    func processEnded() { state.withLock { $0.delegate = nil } }

    func makeNotification(_ payload: [String: Any], identifier: String?) -> PNNotification {
        let id =
            identifier
            ?? state.withLock { state -> String in
                defer { state.nextIdentifier += 1 }
                return "notification-\(state.nextIdentifier)"
            }
        let aps = payload["aps"] as? [String: Any]
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in payload { userInfo[key] = value }
        return PNNotification(
            identifier: id, userInfo: userInfo, categoryIdentifier: aps?["category"] as? String ?? "",
            threadIdentifier: aps?["thread-id"] as? String ?? "")
    }

    func show(_ notification: PNNotification) { state.withLock { $0.shown.append(notification) } }

    func remove(_ notification: PNNotification) {
        state.withLock { $0.shown.removeAll { $0.identifier == notification.identifier } }
    }

    func category(_ identifier: String) -> PNNotificationCategory? {
        state.withLock { $0.categories.first { $0.identifier == identifier } }
    }
}
