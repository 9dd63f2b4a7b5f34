#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// A chat job of a message, as an edit or a deletion of the message finds it
/// (``MessageChangeStore/acceptMessageAction(appId:idempotencyKey:requestHash:collapseId:now:plan:)``).
public struct MessageJob: Sendable, Hashable {
    /// The job, with its payload as stored.
    public var job: PushJob
    /// Whether it still waits to be sent (not leased): an edit may rewrite it, a deletion skip
    /// it. False once it is being sent or has finished.
    public var pending: Bool

    /// Creates a value.
    public init(job: PushJob, pending: Bool) {
        self.job = job
        self.pending = pending
    }
}

/// What an edit or a deletion does, as the service decides it from the message's jobs. The
/// store applies it in the transaction that found the jobs.
public struct MessageActionPlan: Sendable {
    /// Pending jobs to skip (state `skipped`, rule ``skipRule``): a deletion's.
    public var skip: [String]
    /// The rule recorded on the skipped jobs.
    public var skipRule: String
    /// Pending jobs to rewrite: job id → the new payload (an edit's).
    public var rewrite: [String: Data]
    /// New jobs to queue (the background pushes to the devices that got the message).
    public var jobs: [PushJob]
    /// The changes to record in the recipients' feeds.
    public var changes: [PushChange]
    /// The answer to store with the idempotency key (and to give).
    public var response: Data

    /// Creates a plan.
    public init(skip: [String], skipRule: String, rewrite: [String: Data], jobs: [PushJob], changes: [PushChange], response: Data) {
        self.skip = skip
        self.skipRule = skipRule
        self.rewrite = rewrite
        self.jobs = jobs
        self.changes = changes
        self.response = response
    }
}
