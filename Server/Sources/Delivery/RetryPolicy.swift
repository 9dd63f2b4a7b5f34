#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushCore

/// When and how often a temporary failure is retried.
///
/// Exponential back-off from `baseDelay` (doubling per attempt, capped at `maxDelay`, with
/// up to 20 % jitter), replaced by the server's `Retry-After` when it sent one, and never
/// shorter than a per-error minimum (FCM `QUOTA_EXCEEDED`: one minute). A transport failure
/// (a connection reset under the request) is retried first after `transportRetryDelay` — the
/// next attempt goes out on a fresh stream or connection at once — and then on the same
/// exponential schedule. After `maxAttempts` the job is recorded as failed.
public struct RetryPolicy: Sendable {
    /// Attempts before giving up, the first one included.
    public var maxAttempts: Int
    /// The delay after the first failed attempt.
    public var baseDelay: TimeInterval
    /// The longest back-off (and the longest `Retry-After` honoured).
    public var maxDelay: TimeInterval
    /// The delay before the first retry of a transport failure.
    public var transportRetryDelay: TimeInterval = 0.05

    /// Creates a policy.
    public init(maxAttempts: Int = 8, baseDelay: TimeInterval = 1, maxDelay: TimeInterval = 900) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The outcome for a temporary failure of attempt number `attempt` (1-based).
    public func retry(
        attempt: Int, reason: String, retryAfter: TimeInterval?, minimum: TimeInterval = 0, transport: Bool = false,
        now: Date
    ) -> JobOutcome {
        guard attempt < maxAttempts else { return .failed(reason: "\(reason) (gave up after \(attempt) attempts)") }
        var delay: TimeInterval
        if let retryAfter {
            delay = min(retryAfter, maxDelay)
        } else if transport {
            delay = attempt <= 1 ? transportRetryDelay : min(baseDelay * pow(2, Double(attempt - 2)), maxDelay)
            delay *= 1 + Double.random(in: 0..<0.2)
        } else {
            delay = min(baseDelay * pow(2, Double(max(attempt - 1, 0))), maxDelay)
            delay *= 1 + Double.random(in: 0..<0.2)
        }
        return .retry(notBefore: now.addingTimeInterval(max(delay, minimum)), reason: reason)
    }
}
