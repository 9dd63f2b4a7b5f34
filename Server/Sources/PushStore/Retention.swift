#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a retention purge deletes, for both stores.
enum Retention {
    /// The final states of a push job: only these are ever purged.
    static let finalPushStates = [JobState.delivered, JobState.failed, JobState.expired, JobState.skipped]

    /// `'delivered', 'failed', …` for an SQL `IN` list (literals, so PostgreSQL's planner
    /// sees them; they are constants of this file, never input).
    static var finalPushStateList: String {
        finalPushStates.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// Runs `deleteBatch(batchSize)` until it deletes fewer than `batchSize` rows; returns the
    /// rows deleted in all.
    static func inBatches(of batchSize: Int, _ deleteBatch: (Int) throws -> Int) throws -> Int {
        let size = max(1, batchSize)
        var total = 0
        while true {
            let deleted = try deleteBatch(size)
            total += deleted
            if deleted < size { return total }
        }
    }
}
