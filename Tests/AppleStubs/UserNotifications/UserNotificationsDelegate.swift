#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// UserNotifications — the delegate, categories and actions, requests and responses.
// https://developer.apple.com/documentation/usernotifications/unusernotificationcenterdelegate
// https://developer.apple.com/documentation/usernotifications/unnotificationcategory
// https://developer.apple.com/documentation/usernotifications/untextinputnotificationaction

public struct UNNotificationPresentationOptions: OptionSet, @unchecked Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)
}

public struct UNNotificationActionOptions: OptionSet, @unchecked Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}

public struct UNNotificationCategoryOptions: OptionSet, @unchecked Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
}

public let UNNotificationDefaultActionIdentifier: String = "com.apple.UNNotificationDefaultActionIdentifier"
public let UNNotificationDismissActionIdentifier: String = "com.apple.UNNotificationDismissActionIdentifier"

open class UNNotificationAction: NSObject {
    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) { fatalError() }
}

open class UNTextInputNotificationAction: UNNotificationAction {
    public init(
        identifier: String, title: String, options: UNNotificationActionOptions = [],
        textInputButtonTitle: String, textInputPlaceholder: String
    ) { fatalError() }
}

open class UNNotificationCategory: NSObject {
    public init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        options: UNNotificationCategoryOptions = []
    ) { fatalError() }
}

open class UNNotificationSound: NSObject {
    open class var `default`: UNNotificationSound { fatalError() }
}

open class UNNotificationContent: NSObject, NSMutableCopying {
    public func mutableCopy(with zone: NSZone? = nil) -> Any { fatalError() }
    open var title: String { fatalError() }
    open var body: String { fatalError() }
    open var userInfo: [AnyHashable: Any] { fatalError() }
    open var categoryIdentifier: String { fatalError() }
    open var threadIdentifier: String { fatalError() }
    open var sound: UNNotificationSound? { fatalError() }
    open var badge: NSNumber? { fatalError() }
    open var attachments: [UNNotificationAttachment] { fatalError() }
}

open class UNMutableNotificationContent: UNNotificationContent {
    public override init() { fatalError() }
    open override var title: String {
        get { fatalError() }
        set { fatalError() }
    }
    open override var body: String {
        get { fatalError() }
        set { fatalError() }
    }
    open override var userInfo: [AnyHashable: Any] {
        get { fatalError() }
        set { fatalError() }
    }
    open override var categoryIdentifier: String {
        get { fatalError() }
        set { fatalError() }
    }
    open override var threadIdentifier: String {
        get { fatalError() }
        set { fatalError() }
    }
    open override var sound: UNNotificationSound? {
        get { fatalError() }
        set { fatalError() }
    }
    open override var badge: NSNumber? {
        get { fatalError() }
        set { fatalError() }
    }
    open override var attachments: [UNNotificationAttachment] {
        get { fatalError() }
        set { fatalError() }
    }
}

open class UNNotificationTrigger: NSObject {}

open class UNNotificationRequest: NSObject {
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) { fatalError() }
    open var identifier: String { fatalError() }
    open var content: UNNotificationContent { fatalError() }
}

open class UNNotification: NSObject {
    open var request: UNNotificationRequest { fatalError() }
    open var date: Date { fatalError() }
}

open class UNNotificationResponse: NSObject {
    open var notification: UNNotification { fatalError() }
    open var actionIdentifier: String { fatalError() }
}

open class UNTextInputNotificationResponse: UNNotificationResponse {
    open var userText: String { fatalError() }
}

public protocol UNUserNotificationCenterDelegate: NSObjectProtocol {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void)
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void)
}

// Objective-C `optional` requirements, as defaults on Linux.
extension UNUserNotificationCenterDelegate {
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {}
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    ) {}
}

extension UNUserNotificationCenter {
    /// `weak var delegate: (any UNUserNotificationCenterDelegate)?`
    public var delegate: (any UNUserNotificationCenterDelegate)? {
        get { fatalError() }
        set { fatalError() }
    }
    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) { fatalError() }
    public func add(
        _ request: UNNotificationRequest,
        withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) { fatalError() }
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) { fatalError() }
}
