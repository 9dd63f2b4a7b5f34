#if canImport(ObjectiveC)
import Foundation

extension CometChatNotificationInfo {
    /// ``unreadMessageCount`` for Objective-C: an `NSNumber`, or `nil`.
    @objc(unreadMessageCount)
    public var unreadMessageCountNumber: NSNumber? { unreadMessageCount.map { NSNumber(value: $0) } }
}
#endif
