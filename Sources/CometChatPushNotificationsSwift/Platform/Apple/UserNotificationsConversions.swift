#if canImport(UserNotifications)
import Foundation
@preconcurrency import UserNotifications

extension PNNotification {
    /// Copies what the SDK reads out of a `UNNotification`.
    init(_ notification: UNNotification) {
        let content = notification.request.content
        self.init(
            identifier: notification.request.identifier, userInfo: content.userInfo,
            categoryIdentifier: content.categoryIdentifier, threadIdentifier: content.threadIdentifier)
    }
}

extension PNNotificationResponse {
    /// Converts a `UNNotificationResponse`, text input included.
    init(_ response: UNNotificationResponse) {
        let action: Action
        switch response.actionIdentifier {
        case UNNotificationDefaultActionIdentifier:
            action = .open
        case UNNotificationDismissActionIdentifier:
            action = .dismiss
        default:
            if let text = response as? UNTextInputNotificationResponse {
                action = .textInput(actionIdentifier: response.actionIdentifier, text: text.userText)
            } else {
                action = .custom(response.actionIdentifier)
            }
        }
        self.init(notification: PNNotification(response.notification), action: action)
    }
}

extension UNNotificationPresentationOptions {
    /// The UserNotifications options for ``PNPresentationOptions``.
    init(pn options: PNPresentationOptions) {
        var out: UNNotificationPresentationOptions = []
        if options.contains(.banner) { out.insert(.banner) }
        if options.contains(.list) { out.insert(.list) }
        if options.contains(.sound) { out.insert(.sound) }
        if options.contains(.badge) { out.insert(.badge) }
        self = out
    }
}

extension UNNotificationInterruptionLevel {
    /// The UserNotifications level for ``PNInterruptionLevel``.
    init(pn level: PNInterruptionLevel) {
        switch level {
        case .passive: self = .passive
        case .active: self = .active
        case .timeSensitive: self = .timeSensitive
        }
    }
}

extension UNNotificationCategory {
    /// The UserNotifications category for ``PNNotificationCategory``.
    convenience init(pn category: PNNotificationCategory) {
        self.init(
            identifier: category.identifier,
            actions: category.actions.map(UNNotificationAction.make(pn:)),
            intentIdentifiers: [],
            options: category.reportsDismiss ? [.customDismissAction] : [])
    }
}

extension UNNotificationAction {
    /// A plain or text-input action for ``PNNotificationAction``.
    static func make(pn action: PNNotificationAction) -> UNNotificationAction {
        var options: UNNotificationActionOptions = []
        if action.options.contains(.authenticationRequired) { options.insert(.authenticationRequired) }
        if action.options.contains(.destructive) { options.insert(.destructive) }
        if action.options.contains(.foreground) { options.insert(.foreground) }
        switch action.kind {
        case .button:
            return UNNotificationAction(identifier: action.identifier, title: action.title, options: options)
        case .textInput(let buttonTitle, let placeholder):
            return UNTextInputNotificationAction(
                identifier: action.identifier, title: action.title, options: options,
                textInputButtonTitle: buttonTitle, textInputPlaceholder: placeholder)
        }
    }
}
#endif
