#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// A test double: records every job it is given and answers with a scripted
/// outcome (``JobOutcome/delivered`` by default). It sends nothing anywhere.
public final class RecordingSender: PushSender {
    private let recorded = Locked<[PushJob]>([])
    private let outcome: @Sendable (PushJob) -> JobOutcome

    /// Creates a sender that answers every job with `outcome(job)`.
    public init(outcome: @escaping @Sendable (PushJob) -> JobOutcome = { _ in .delivered }) {
        self.outcome = outcome
    }

    /// The jobs received so far, in order.
    public var jobs: [PushJob] {
        recorded.withLock { $0 }
    }

    /// Records the job and returns the scripted outcome.
    public func send(_ job: PushJob) async -> JobOutcome {
        recorded.withLock { $0.append(job) }
        return outcome(job)
    }
}
