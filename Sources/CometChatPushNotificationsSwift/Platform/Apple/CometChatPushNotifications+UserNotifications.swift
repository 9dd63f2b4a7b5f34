#if canImport(UserNotifications)
import Foundation
@preconcurrency import UserNotifications

extension CometChatPushNotifications {
    /// For apps that keep their own `UNUserNotificationCenter` delegate: call this from
    /// `userNotificationCenter(_:willPresent:withCompletionHandler:)` and the SDK presents the
    /// notification as it would as the delegate. Pass iOS's completion handler through.
    @objc(handleWillPresentNotification:completionHandler:)
    public func handleWillPresentNotification(
        _ notification: UNNotification,
        completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        handleWillPresentNotification(PNNotification(notification)) {
            completionHandler(UNNotificationPresentationOptions(pn: $0))
        }
    }

    /// For apps that keep their own `UNUserNotificationCenter` delegate: call this from
    /// `userNotificationCenter(_:didReceive:withCompletionHandler:)` and the SDK routes the tap
    /// or sends the reply as it would as the delegate. Pass iOS's completion handler through.
    @objc(handleNotificationResponse:completionHandler:)
    public func handleNotificationResponse(
        _ response: UNNotificationResponse,
        completionHandler: @escaping @Sendable () -> Void
    ) {
        handleNotificationResponse(PNNotificationResponse(response), completionHandler: completionHandler)
    }

    /// The SDK's `MessageCategory` with its Reply action (in the device's language, as
    /// `initialize` sets it), for apps that set their own categories after `initialize`: include
    /// it, since iOS keeps only the last set.
    @objc(messageCategory)
    public static var messageCategory: UNNotificationCategory {
        UNNotificationCategory(pn: MessageCategory.category(languages: Locale.preferredLanguages))
    }

    /// Every category `initialize` set: ``messageCategory`` and those of the linked products
    /// (the Calls product's `MissedCallCategory`, with its Call back action). Apps that set their
    /// own categories after `initialize` include these, since iOS keeps only the last set.
    @objc(notificationCategories)
    public var notificationCategories: Set<UNNotificationCategory> { Set(sdkCategories.map(UNNotificationCategory.init(pn:))) }
}
#endif
