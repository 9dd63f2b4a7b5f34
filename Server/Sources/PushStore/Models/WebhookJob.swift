#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An event waiting to be posted to the app's webhook (durable; retried until delivered).
public struct WebhookJob: Sendable, Hashable {
    /// Unique id; sent as the event id so receivers can de-duplicate.
    public var id: String
    /// The app whose webhook receives it.
    public var appId: String
    /// Event name, e.g. `message.quickReply`.
    public var event: String
    /// The JSON body to post.
    public var body: Data
    /// Claims so far, this one included.
    public var attempts: Int
    /// Not claimed before this time.
    public var notBefore: Date
    /// Creation time.
    public var createdAt: Date

    /// Creates a job.
    public init(id: String, appId: String, event: String, body: Data, attempts: Int = 0, notBefore: Date, createdAt: Date) {
        self.id = id
        self.appId = appId
        self.event = event
        self.body = body
        self.attempts = attempts
        self.notBefore = notBefore
        self.createdAt = createdAt
    }
}
