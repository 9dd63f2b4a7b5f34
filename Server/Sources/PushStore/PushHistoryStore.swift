#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One minute of an app's pushes (issue 31, the dashboard's charts): the jobs accepted in it,
/// and of those, how many ended each way so far.
public struct PushActivityMinute: Sendable, Hashable {
    /// The minute's start.
    public var minute: Date
    /// Jobs accepted in the minute (skipped ones included).
    public var accepted: Int
    /// Of those, delivered (APNs or FCM answered 200).
    public var delivered: Int
    /// Failed (refused, or could not be sent).
    public var failed: Int
    /// Expired before they could be sent.
    public var expired: Int
    /// Skipped by a preference or a change (never sent).
    public var skipped: Int

    /// Creates a record.
    public init(minute: Date, accepted: Int, delivered: Int, failed: Int, expired: Int, skipped: Int) {
        self.minute = minute
        self.accepted = accepted
        self.delivered = delivered
        self.failed = failed
        self.expired = expired
        self.skipped = skipped
    }

    /// Still pending or being sent.
    public var inFlight: Int { max(0, accepted - delivered - failed - expired - skipped) }
}

/// A user's pushes and an app's recent activity, for "what happened to Alice's push?" (issue
/// 31 part 3). Both read the jobs the service keeps for its retention period.
public protocol PushHistoryStore: Sendable {
    /// `uid`'s pushes, newest first (by creation, then id), at most `limit`, after `before` in
    /// that order when it is given (the last push of the previous page: its creation and id):
    /// each as a delivery log line with its request id. Found through the index
    /// `push_jobs_user` (app, uid, created_at): as fast for a user with three pushes as for one
    /// with a million.
    func userPushes(
        appId: String, uid: String, before: (createdAt: Date, id: String)?, limit: Int
    ) throws -> [(requestId: String, entry: PushJobLogEntry)]

    /// The trace events (delivered, opened, replied) of these pushes.
    func pushEvents(appId: String, pushIds: [String]) throws -> [PushEvent]

    /// The app's pushes per minute from `since` on (minutes without pushes left out), oldest first.
    func pushActivity(appId: String, since: Date) throws -> [PushActivityMinute]
}
