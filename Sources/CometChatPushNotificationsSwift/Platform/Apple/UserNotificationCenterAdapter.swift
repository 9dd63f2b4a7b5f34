#if canImport(UserNotifications)
import Foundation
@preconcurrency import UserNotifications

/// ``PNNotificationCenter`` on `UNUserNotificationCenter`. Converts types and forwards; the
/// SDK decides.
final class UserNotificationCenterAdapter: PNNotificationCenter, @unchecked Sendable {
    // @unchecked: `proxy` is lock-protected.
    /// `UNUserNotificationCenter.delegate` is weak: the adapter keeps the proxy alive.
    private let proxy = PNLocked<UserNotificationCenterDelegateProxy?>(nil)

    private var center: UNUserNotificationCenter { UNUserNotificationCenter.current() }

    func setCategories(_ categories: [PNNotificationCategory]) {
        center.setNotificationCategories(Set(categories.map(UNNotificationCategory.init(pn:))))
    }

    func becomeDelegate(_ events: PNNotificationCenterEvents) {
        let proxy = UserNotificationCenterDelegateProxy(events: events)
        self.proxy.withLock { $0 = proxy }
        center.delegate = proxy
    }

    func add(_ request: PNLocalNotificationRequest, completion: @escaping @Sendable ((any Error)?) -> Void) {
        let content = UNMutableNotificationContent()
        content.title = request.title
        content.body = request.body
        content.sound = request.playsSound ? .default : nil
        content.interruptionLevel = UNNotificationInterruptionLevel(pn: request.interruptionLevel)
        content.userInfo = request.userInfo
        if let thread = request.threadIdentifier { content.threadIdentifier = thread }
        if let category = request.categoryIdentifier { content.categoryIdentifier = category }
        let unRequest = UNNotificationRequest(identifier: request.identifier, content: content, trigger: nil)
        center.add(unRequest, withCompletionHandler: completion)
    }

    func removeDeliveredNotifications(identifiers: [String]) {
        center.removeDeliveredNotifications(withIdentifiers: identifiers)
    }

    func deliveredNotifications(completion: @escaping @Sendable ([PNNotification]) -> Void) {
        center.getDeliveredNotifications { notifications in completion(notifications.map(PNNotification.init)) }
    }
}

/// The object iOS calls as the notification center's delegate; it forwards to the SDK's
/// events with the completion handlers.
final class UserNotificationCenterDelegateProxy: NSObject, UNUserNotificationCenterDelegate, Sendable {
    private let events: PNNotificationCenterEvents

    init(events: PNNotificationCenterEvents) {
        self.events = events
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        events.willPresent(PNNotification(notification)) { completionHandler(UNNotificationPresentationOptions(pn: $0)) }
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    ) {
        events.didReceive(PNNotificationResponse(response), completionHandler)
    }
}
#endif
