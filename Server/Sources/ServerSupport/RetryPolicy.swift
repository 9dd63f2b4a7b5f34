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

/// When and how often something that failed is tried again: the one back-off type of the
/// service.
///
/// Exponential back-off from `baseDelay` (doubling per attempt, capped at `maxDelay`), each
/// delay lengthened at random by up to `jitter` of it (20 % by default; 0 for an exact
/// schedule), replaced by the server's `Retry-After` when it sent one. A transport failure (a
/// connection reset under a push) is retried first after `transportRetryDelay`, the next
/// attempt going out on a fresh stream or connection at once, and then on the same schedule.
/// After `maxAttempts` a push job is recorded as failed (`retry(attempt:…)`, in PushCore).
///
/// Its users: push retries (`DeliveryConfiguration.retry`, with the outcome from PushCore's
/// `retry(attempt:reason:retryAfter:minimum:transport:now:)`), webhook retries
/// (`ServiceConfiguration.webhookRetry`, forever), the probe schedule of a provider whose circuit
/// breaker is open (`ProviderBreakers.Settings.probe`, exact) and the HTTP/2 clients' reconnection
/// back-off (`HTTP2Client.Configuration.reconnect` and `NativeHTTP2Client.Configuration.reconnect`,
/// exact).
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts before giving up, the first one included.
    public var maxAttempts: Int
    /// The delay after the first failed attempt.
    public var baseDelay: TimeInterval
    /// The longest back-off (and the longest `Retry-After` honoured).
    public var maxDelay: TimeInterval
    /// The most a delay is lengthened by at random, as a fraction of it (0.2: up to 20 %; 0: the
    /// exact schedule).
    public var jitter: Double
    /// The delay before the first retry of a transport failure.
    public var transportRetryDelay: TimeInterval = 0.05

    /// Creates a policy.
    public init(maxAttempts: Int = 8, baseDelay: TimeInterval = 1, maxDelay: TimeInterval = 900, jitter: Double = 0.2) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
    }

    /// A schedule without jitter or attempt limit: `baseDelay`, doubling per attempt, up to
    /// `maxDelay`.
    public static func exact(from baseDelay: TimeInterval, upTo maxDelay: TimeInterval) -> RetryPolicy {
        RetryPolicy(maxAttempts: .max, baseDelay: baseDelay, maxDelay: maxDelay, jitter: 0)
    }

    /// The delay before the retry of attempt number `attempt` (1-based): `Retry-After` when
    /// given (capped at `maxDelay`), else the exponential schedule with its jitter.
    public func delay(attempt: Int, retryAfter: TimeInterval? = nil, transport: Bool = false) -> TimeInterval {
        if let retryAfter { return min(max(retryAfter, 0), maxDelay) }
        let exponent: Int
        if transport {
            if attempt <= 1 { return jittered(transportRetryDelay) }
            exponent = attempt - 2
        } else {
            exponent = max(attempt - 1, 0)
        }
        return jittered(min(baseDelay * pow(2, Double(min(exponent, 40))), maxDelay))
    }

    private func jittered(_ delay: TimeInterval) -> TimeInterval {
        jitter > 0 ? delay * (1 + Double.random(in: 0..<jitter)) : delay
    }
}
