#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A step of a push after the provider took it, as the SDK reported it: the trace's
/// `delivered`, `opened` and `replied`.
public struct PushEvent: Sendable, Hashable {
    /// The app.
    public var appId: String
    /// The push id (the job id the payload carries as `pushId`).
    public var pushId: String
    /// The send request the push belongs to.
    public var requestId: String
    /// `delivered`, `opened` or `replied`.
    public var step: String
    /// When the service heard of it.
    public var at: Date
    /// `extension` or `app` for `delivered`; the message id for `replied`.
    public var detail: String?

    /// Creates an event.
    public init(appId: String, pushId: String, requestId: String, step: String, at: Date, detail: String? = nil) {
        self.appId = appId
        self.pushId = pushId
        self.requestId = requestId
        self.step = step
        self.at = at
        self.detail = detail
    }
}
