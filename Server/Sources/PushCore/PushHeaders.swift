/// The APNs request headers of a job (Contract/WIRE-CONTRACT.md §5), decided when the job is built.
///
/// FCM senders map them to `message.apns.headers`.
public struct PushHeaders: Sendable, Hashable, Codable {
    /// `apns-push-type`.
    public var pushType: PushType
    /// `apns-priority`: 10 (immediate) or 5 (power-saving; required for `background`).
    public var priority: Int
    /// `apns-expiration` in epoch seconds; 0 means "deliver now or never".
    public var expiration: Int64
    /// `apns-collapse-id` (at most 64 bytes), if any.
    public var collapseId: String?
    /// Appended to the provider's bundle id to form `apns-topic` (".voip" for VoIP, else "").
    public var topicSuffix: String

    /// Creates headers.
    public init(pushType: PushType, priority: Int, expiration: Int64, collapseId: String? = nil, topicSuffix: String = "") {
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.topicSuffix = topicSuffix
    }
}
