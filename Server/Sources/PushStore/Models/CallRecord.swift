#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A call the service pushed (`callAction: initiated`), kept so a decline can reach the caller.
public struct CallRecord: Sendable, Hashable {
    /// The app.
    public var appId: String
    /// The call session id.
    public var sessionId: String
    /// The caller's uid.
    public var callerUid: String
    /// The call as JSON (parties, names, call type), for building the caller's push.
    public var details: Data
    /// Creation time.
    public var createdAt: Date

    /// Creates a record.
    public init(appId: String, sessionId: String, callerUid: String, details: Data, createdAt: Date) {
        self.appId = appId
        self.sessionId = sessionId
        self.callerUid = callerUid
        self.details = details
        self.createdAt = createdAt
    }
}
