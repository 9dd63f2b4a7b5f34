import Foundation

/// What the SDK read out of a push payload.
///
/// `parseNotificationInfo(from:)` builds it; ``rawPayload`` keeps everything the push carried.
#if canImport(ObjectiveC)
@objc(CometChatNotificationInfo)
#endif
public final class CometChatNotificationInfo: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init; `rawPayload` holds property-list values only.

    /// The whole payload, as it arrived.
    public let rawPayload: [AnyHashable: Any]

    /// Wraps a payload.
    public init(rawPayload: [AnyHashable: Any]) {
        self.rawPayload = rawPayload
    }
}
