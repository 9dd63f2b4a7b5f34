#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerSupport

extension RetryPolicy {
    /// The outcome for a temporary failure of attempt number `attempt` (1-based): a retry after
    /// ``RetryPolicy/delay(attempt:retryAfter:transport:)`` (at least `minimum`), or failed once
    /// `maxAttempts` were made.
    public func retry(
        attempt: Int, reason: String, retryAfter: TimeInterval?, minimum: TimeInterval = 0, transport: Bool = false,
        now: Date
    ) -> JobOutcome {
        guard attempt < maxAttempts else { return .failed(reason: "\(reason) (gave up after \(attempt) attempts)") }
        let delay = delay(attempt: attempt, retryAfter: retryAfter, transport: transport)
        return .retry(notBefore: now.addingTimeInterval(max(delay, minimum)), reason: reason)
    }
}
