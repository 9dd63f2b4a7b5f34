import APNs
import FCM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

/// Turns provider answers into job outcomes (Contract/WIRE-CONTRACT.md §5 and §6).
public struct OutcomeMapping: Sendable {
    /// The retry policy for temporary failures.
    public var retry: RetryPolicy

    /// Creates a mapping.
    public init(retry: RetryPolicy = RetryPolicy()) { self.retry = retry }

    /// APNs reasons after which the token must never be used again.
    public static let deadTokenReasons: Set<String> = ["Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic"]

    /// The outcome of an APNs response for attempt `attempt`.
    /// - Parameter registeredAt: when the token was last registered; a 410 whose timestamp is
    ///   older than that does not kill the token (the app registered it again since).
    public func outcome(
        for response: APNsResponse, attempt: Int, registeredAt: Date? = nil, now: Date
    ) -> JobOutcome {
        switch response {
        case .rejectedLocally(let reason):
            return reason == "BadDeviceToken" ? .tokenInvalid(reason: reason) : .failed(reason: reason)
        case .transportFailure(let message):
            return retry.retry(attempt: attempt, reason: "network: \(message)", retryAfter: nil, transport: true, now: now)
        case .answered(let answer):
            return outcome(for: answer, attempt: attempt, registeredAt: registeredAt, now: now)
        }
    }

    func outcome(for answer: APNsAnswer, attempt: Int, registeredAt: Date?, now: Date) -> JobOutcome {
        let reason = answer.reason ?? "HTTP \(answer.status)"
        switch answer.status {
        case 200:
            return .delivered
        case 410:
            if let unregisteredAt = answer.unregisteredAt, let registeredAt, registeredAt > unregisteredAt {
                return .failed(reason: "Unregistered (token registered again since)")
            }
            return .tokenInvalid(reason: reason)
        case 400 where Self.deadTokenReasons.contains(reason):
            return .tokenInvalid(reason: reason)
        case 403 where reason == "ExpiredProviderToken":
            // The client already signed a new token and retried once; try again later.
            return retry.retry(attempt: attempt, reason: reason, retryAfter: answer.retryAfter, now: now)
        case 429, 500...599:
            return retry.retry(attempt: attempt, reason: reason, retryAfter: answer.retryAfter, now: now)
        default:
            return .failed(reason: reason)
        }
    }

    /// The outcome of an FCM response for attempt `attempt`.
    public func outcome(for response: FCMResponse, attempt: Int, now: Date) -> JobOutcome {
        switch response {
        case .authFailure(let message):
            return .failed(reason: "FCM auth: \(message)")
        case .transportFailure(let message):
            return retry.retry(attempt: attempt, reason: "network: \(message)", retryAfter: nil, transport: true, now: now)
        case .destinationRefused(let message):
            // The provider's token_uri leads where it may not: the job waits, as for any
            // misconfigured provider (never failed), and is retried at once when it is updated.
            return .retry(
                notBefore: now.addingTimeInterval(retry.delay(attempt: attempt)), reason: "\(JobOutcome.waitingPrefix): \(message)")
        case .answered(let status, let code, let retryAfter):
            let reason = code ?? "HTTP \(status)"
            if status == 200 { return .delivered }
            if code == "UNREGISTERED" || status == 404 { return .tokenInvalid(reason: "UNREGISTERED") }
            if status == 429 || code == "QUOTA_EXCEEDED" {
                return retry.retry(attempt: attempt, reason: reason, retryAfter: retryAfter, minimum: 60, now: now)
            }
            if status >= 500 || code == "UNAVAILABLE" || code == "INTERNAL" {
                return retry.retry(attempt: attempt, reason: reason, retryAfter: retryAfter, now: now)
            }
            return .failed(reason: reason)
        }
    }
}
