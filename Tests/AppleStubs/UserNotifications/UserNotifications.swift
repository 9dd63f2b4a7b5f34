#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// UserNotifications — authorization, settings and the badge.
// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter

public enum UNAuthorizationStatus: Int, @unchecked Sendable {
    case notDetermined = 0
    case denied = 1
    case authorized = 2
    case provisional = 3
    case ephemeral = 4
}

public struct UNAuthorizationOptions: OptionSet, @unchecked Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
}

open class UNNotificationSettings: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }
    public required init?(coder: NSCoder) { fatalError() }
    public func encode(with coder: NSCoder) {}
    public func copy(with zone: NSZone? = nil) -> Any { self }
    open var authorizationStatus: UNAuthorizationStatus { fatalError() }
}

open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    open class func current() -> UNUserNotificationCenter { fatalError() }
    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool { fatalError() }
    open func requestAuthorization(
        options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) { fatalError() }
    open func notificationSettings() async -> UNNotificationSettings { fatalError() }
    open func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) { fatalError() }
    @available(iOS 16.0, *)
    open func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        fatalError()
    }
}
