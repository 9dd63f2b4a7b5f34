import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// A delegate that records every callback in order, with the thread check the SDK promises
/// (callbacks on the main queue).
#if canImport(ObjectiveC)
@objc(PNRecordingDelegate)
#endif
open class RecordingDelegate: NSObject, CometChatPushNotificationsDelegate, @unchecked Sendable {
    // @unchecked: all mutable state is inside `log`.

    /// One callback.
    public enum Event: Equatable, Sendable {
        /// `didTapNotification(_:)`, with the payload's `type` or `source`.
        case tapped(String?)
        /// `navigateToNotificationsFeed()`.
        case notificationsFeed
        /// `navigateToDefaultScreen()`.
        case defaultScreen
        /// `onPushTokenRegistered(platform:)`.
        case registered(CometChatPushTokenPlatform)
        /// `onPushTokenRegistrationFailed(platform:error:)`, with the error's code.
        case failed(CometChatPushTokenPlatform, PNError.Code)
        /// `didEditMessage(_:)`, with the message id.
        case edited(String)
        /// `didDeleteMessage(_:)`, with the message id.
        case deleted(String)
        /// A product's callback, by name.
        case product(String)
    }

    private let log = PNLocked<[Event]>([])
    private let infos = PNLocked<[CometChatNotificationInfo]>([])
    private let errors = PNLocked<[PNError]>([])
    private let changes = PNLocked<[PNMessageChange]>([])

    /// Creates an empty recorder.
    public override init() {}

    /// Every callback, in order.
    public var events: [Event] { log.current }
    /// The infos of tapped notifications.
    public var tappedInfos: [CometChatNotificationInfo] { infos.current }
    /// The errors of failed registrations.
    public var registrationErrors: [PNError] { errors.current }
    /// The edits and deletions the delegate heard of, in order.
    public var messageChanges: [PNMessageChange] { changes.current }

    /// Records a product callback (for subclasses adopting the Chat or Calls delegate).
    public func record(_ event: Event) { log.withLock { $0.append(event) } }

    /// Records the tap.
    open func didTapNotification(_ info: CometChatNotificationInfo) {
        infos.withLock { $0.append(info) }
        let kind = (info.rawPayload["type"] as? String) ?? (info.rawPayload["source"] as? String)
        record(.tapped(kind))
    }
    /// Records the call.
    open func navigateToNotificationsFeed() { record(.notificationsFeed) }
    /// Records the call.
    open func navigateToDefaultScreen() { record(.defaultScreen) }
    /// Records the call.
    open func onPushTokenRegistered(platform: CometChatPushTokenPlatform) { record(.registered(platform)) }
    /// Records the call.
    open func onPushTokenRegistrationFailed(platform: CometChatPushTokenPlatform, error: PNError) {
        errors.withLock { $0.append(error) }
        record(.failed(platform, error.code))
    }
    /// Records the edit.
    open func didEditMessage(_ change: PNMessageChange) {
        changes.withLock { $0.append(change) }
        record(.edited(change.messageId))
    }
    /// Records the deletion.
    open func didDeleteMessage(_ change: PNMessageChange) {
        changes.withLock { $0.append(change) }
        record(.deleted(change.messageId))
    }
}
