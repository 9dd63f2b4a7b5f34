#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// UserNotifications — the Notification Service Extension: its base class, attachments, badge,
// and content updated from a provider (communication notifications, iOS 15).
// https://developer.apple.com/documentation/usernotifications/unnotificationserviceextension
// https://developer.apple.com/documentation/usernotifications/unnotificationattachment
// https://developer.apple.com/documentation/usernotifications/unnotificationcontent/updating(from:)

open class UNNotificationServiceExtension: NSObject {
    public override init() { fatalError() }
    open func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) { fatalError() }
    open func serviceExtensionTimeWillExpire() { fatalError() }
}

public let UNNotificationAttachmentOptionsTypeHintKey: String = "UNNotificationAttachmentOptionsTypeHintKey"

open class UNNotificationAttachment: NSObject {
    public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws { fatalError() }
    open var identifier: String { fatalError() }
    open var url: URL { fatalError() }
}

/// `protocol UNNotificationContentProviding : NSObjectProtocol` (adopted only by Apple's types).
public protocol UNNotificationContentProviding: NSObjectProtocol {}

extension UNNotificationContent {
    @available(iOS 15.0, *)
    public func updating(from provider: any UNNotificationContentProviding) throws -> UNNotificationContent {
        fatalError()
    }
}
