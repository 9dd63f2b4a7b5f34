#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How many rows of each kind one retention purge deleted
/// (``ServiceStore/purgeFinished(before:batchSize:)``).
public struct RetentionCounts: Sendable, Equatable, CustomStringConvertible {
    /// Finished push jobs (delivered, failed, expired or skipped).
    public var pushJobs = 0
    /// Delivered webhook jobs.
    public var webhookJobs = 0
    /// Trace events (`push_events`).
    public var pushEvents = 0
    /// Idempotency records (send keys and once-only event keys).
    public var idempotencyKeys = 0
    /// Call records (the caller of a call, for the decline push).
    public var calls = 0
    /// Changes of the users' changes feeds.
    public var changes = 0
    /// Push tokens kept after a revocation (for the log and trace of later sends).
    public var revokedPushTokens = 0
    /// Messages of the service's badge read (or deleted) before the cutoff.
    public var readMessages = 0
    /// Group sends whose expansion ended before the cutoff, with the members they were taken for.
    public var groupSends = 0

    /// No rows.
    public init() {}

    /// The counts given.
    public init(
        pushJobs: Int, webhookJobs: Int, pushEvents: Int, idempotencyKeys: Int, calls: Int, changes: Int = 0, revokedPushTokens: Int = 0
    ) {
        self.pushJobs = pushJobs
        self.webhookJobs = webhookJobs
        self.pushEvents = pushEvents
        self.idempotencyKeys = idempotencyKeys
        self.calls = calls
        self.changes = changes
        self.revokedPushTokens = revokedPushTokens
    }

    /// Every row deleted.
    public var total: Int {
        pushJobs + webhookJobs + pushEvents + idempotencyKeys + calls + changes + revokedPushTokens + readMessages + groupSends
    }

    /// Each kind with its count, in a fixed order; the names are the `kind` labels of the
    /// `push_retention_deleted_total` metric.
    public var byKind: [(kind: String, count: Int)] {
        [
            ("push_jobs", pushJobs), ("webhook_jobs", webhookJobs), ("push_events", pushEvents),
            ("idempotency_keys", idempotencyKeys), ("calls", calls), ("changes", changes),
            ("revoked_push_tokens", revokedPushTokens), ("read_messages", readMessages), ("group_sends", groupSends),
        ]
    }

    /// `push_jobs=3 webhook_jobs=0 …` (counts only).
    public var description: String {
        byKind.map { "\($0.kind)=\($0.count)" }.joined(separator: " ")
    }

    /// Adds another purge's counts.
    public static func += (lhs: inout RetentionCounts, rhs: RetentionCounts) {
        lhs.pushJobs += rhs.pushJobs
        lhs.webhookJobs += rhs.webhookJobs
        lhs.pushEvents += rhs.pushEvents
        lhs.idempotencyKeys += rhs.idempotencyKeys
        lhs.calls += rhs.calls
        lhs.changes += rhs.changes
        lhs.revokedPushTokens += rhs.revokedPushTokens
        lhs.readMessages += rhs.readMessages
        lhs.groupSends += rhs.groupSends
    }
}
