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

/// When and how often a temporary failure is retried.
///
/// Exponential back-off from `baseDelay` (doubling per attempt, capped at `maxDelay`, with
/// up to 20 % jitter), replaced by the server's `Retry-After` when it sent one, and never
/// shorter than a per-error minimum (FCM `QUOTA_EXCEEDED`: one minute). A transport failure
/// (a connection reset under the request) is retried first after `transportRetryDelay` — the
/// next attempt goes out on a fresh stream or connection at once — and then on the same
/// exponential schedule. After `maxAttempts` the job is recorded as failed.
///
/// The one back-off type of the service: push delivery uses ``retry(attempt:reason:retryAfter:minimum:transport:now:)``,
/// webhooks (which retry forever) ``delay(attempt:retryAfter:transport:)``.
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

    /// The delay before the retry of attempt number `attempt` (1-based): `Retry-After` when
    /// given (capped at `maxDelay`), else the exponential schedule with up to 20 % jitter.
    public func delay(attempt: Int, retryAfter: TimeInterval? = nil, transport: Bool = false) -> TimeInterval {
        if let retryAfter { return min(max(retryAfter, 0), maxDelay) }
        let exponent: Int
        if transport {
            if attempt <= 1 { return transportRetryDelay * (1 + Double.random(in: 0..<0.2)) }
            exponent = attempt - 2
        } else {
            exponent = max(attempt - 1, 0)
        }
        let delay = min(baseDelay * pow(2, Double(min(exponent, 40))), maxDelay)
        return delay * (1 + Double.random(in: 0..<0.2))
    }

    /// The outcome for a temporary failure of attempt number `attempt` (1-based).
    public func retry(
        attempt: Int, reason: String, retryAfter: TimeInterval?, minimum: TimeInterval = 0, transport: Bool = false,
        now: Date
    ) -> JobOutcome {
        guard attempt < maxAttempts else { return .failed(reason: "\(reason) (gave up after \(attempt) attempts)") }
        let delay = delay(attempt: attempt, retryAfter: retryAfter, transport: transport)
        return .retry(notBefore: now.addingTimeInterval(max(delay, minimum)), reason: reason)
    }
}
