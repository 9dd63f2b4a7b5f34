#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// What every ``ServiceStore`` keeps for edits and deletions of messages, the users' changes
/// feeds and revoked sessions (Contract/WIRE-CONTRACT.md §2 and §3).
public protocol MessageChangeStore: Sendable {
    /// Stores push jobs and changes in one transaction (a read: its background pushes and its
    /// entry in the reader's feed). A change of a user who no longer exists is left out.
    func record(changes: [PushChange], pushJobs: [PushJob]) throws

    /// The changes of `uid` after position `after`, oldest first, at most `limit` (at least 1).
    func changes(appId: String, uid: String, after: Int64, limit: Int) throws -> PushChangesPage

    /// The position of the newest change committed (of any user; 0 when none ever was): the
    /// cursor of "now", after which a new installation starts.
    func latestChangePosition() throws -> Int64

    /// An edit or a deletion of a message, as one transaction: unless `idempotencyKey` was used
    /// before (then the stored answer, or ``SendAcceptance/keyReused`` for another body), finds the
    /// app's chat jobs whose `apns-collapse-id` is one of `collapseIds` (one id for a standard app;
    /// a private app's are keyed per recipient: one per recipient) and that were not skipped, hands
    /// them to `plan`, and applies what it returns: skips and rewrites the jobs that are still
    /// pending (a job being sent by then is left alone), queues the new jobs, records the
    /// changes and the idempotency key with the plan's answer.
    ///
    /// `plan` runs inside the transaction (on SQLite with the connection held): it must not call
    /// the store. What it throws rolls everything back and is rethrown.
    func acceptMessageAction(
        appId: String, idempotencyKey: String, requestHash: Data, collapseIds: [String], now: Date,
        plan: ([MessageJob]) throws -> MessageActionPlan
    ) throws -> SendAcceptance

    /// The push tokens of these users deleted by a revocation within the retention period.
    func revokedPushTokens(appId: String, uids: [String]) throws -> [RevokedPushToken]
}
