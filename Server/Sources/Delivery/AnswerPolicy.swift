import APNs
import FCM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

/// The one place that decides what a provider's answer means for its job: delivered, tried again
/// later, waiting for its provider to be fixed, failed, or failed with its token deleted
/// (Contract/WIRE-CONTRACT.md §5 and §6).
///
/// Two steps. ``meaning(of:)-(APNsResponse)`` and ``meaning(of:)-(FCMResponse)`` say what an
/// answer is, the same for every caller; the sender records it with the provider's circuit
/// breaker (``Meaning/breakerAnswer``) and, for a refused token, asks the breaker's verdict.
/// ``decide(_:_:)`` then turns the meaning and the job's facts (``Context``: attempt, time, the
/// verdict, when the token was registered) into a ``JobOutcome``, on the ``retry`` schedule. What
/// the sender finds itself (no such provider, a key it cannot use, an open breaker holding the
/// job back) goes through ``decide(_:_:)`` as a meaning too: every outcome the sender gives
/// comes from here.
///
/// Below this, and not about a job's fate: the APNs client signs a new provider token and sends
/// once more on `ExpiredProviderToken`, and the HTTP/2 client backs off failed connections
/// (``RetryPolicy``). ``triesOtherEnvironment(after:environmentKnown:)`` says when a refused token
/// is tried once in the other APNs environment before any of this.
public struct AnswerPolicy: Sendable {
    /// What an answer says, whoever gave it.
    public enum Meaning: Sendable, Equatable {
        /// The provider took the push.
        case accepted
        /// The provider refused the token: a dead token, or every token when the provider is set
        /// up for another app or environment. The breaker's verdict tells which. `unregisteredAt`:
        /// APNs' last time the token was valid (410).
        case tokenRefused(reason: APNsReason, unregisteredAt: Date? = nil)
        /// The token is dead beyond doubt (it cannot be a token, or FCM says it is gone): the job
        /// fails and the token is deleted, without asking the breaker.
        case tokenInvalid(reason: String)
        /// Only a wrong provider configuration gives it: the job waits (retried, never failed)
        /// and no token is deleted.
        case providerWrong(reason: String)
        /// Temporary: retried on the back-off (the answer's `Retry-After`, at least `minimum`
        /// seconds; `transport`: no answer, retried first at once), failed after the last attempt.
        case temporary(reason: String, retryAfter: TimeInterval? = nil, minimum: TimeInterval = 0, transport: Bool = false)
        /// Fails every time: the job fails, the token is kept.
        case failed(reason: String)

        /// What the answer tells the provider's circuit breaker.
        public var breakerAnswer: ProviderBreakers.Answer {
            switch self {
            case .accepted: return .accepted
            case .tokenRefused(let reason, _): return .token(reason)
            case .providerWrong(let reason): return .provider(reason)
            case .tokenInvalid, .temporary, .failed: return .other
            }
        }
    }

    /// The facts about a job that the decision needs besides the answer.
    public struct Context: Sendable {
        /// The attempt that got the answer (1 for the first).
        public var attempt: Int
        /// The time of the answer.
        public var now: Date
        /// The breaker's verdict on a refused token (nil: none was asked, the token is dead).
        public var verdict: ProviderBreakers.Verdict?
        /// When the token was last registered: a 410 whose timestamp is older leaves it alone
        /// (the app registered it again since).
        public var registeredAt: Date?
        /// A job that waits for its provider is not retried before this (an open breaker's next
        /// probe).
        public var notBefore: Date?

        /// Creates the facts.
        public init(
            attempt: Int, now: Date, verdict: ProviderBreakers.Verdict? = nil, registeredAt: Date? = nil, notBefore: Date? = nil
        ) {
            self.attempt = attempt
            self.now = now
            self.verdict = verdict
            self.registeredAt = registeredAt
            self.notBefore = notBefore
        }
    }

    /// The schedule of temporary failures and of jobs that wait.
    public var retry: RetryPolicy

    /// Creates the policy.
    public init(retry: RetryPolicy = RetryPolicy()) { self.retry = retry }

    /// What an APNs response says.
    public static func meaning(of response: APNsResponse) -> Meaning {
        switch response {
        case .rejectedLocally(let reason):
            // Not sent: the notification failed the checks APNs would make (a token that is not
            // hex is no token).
            return reason == .badDeviceToken ? .tokenInvalid(reason: reason.rawValue) : .failed(reason: reason.rawValue)
        case .transportFailure(let message):
            return .temporary(reason: "network: \(message)", transport: true)
        case .answered(let answer):
            let reason = answer.reason?.rawValue ?? "HTTP \(answer.status)"
            switch (answer.status, answer.reason) {
            case (200, _):
                return .accepted
            case (410, _):
                return .tokenRefused(reason: answer.reason ?? .unregistered, unregisteredAt: answer.unregisteredAt)
            case (400, .badDeviceToken?), (400, .deviceTokenNotForTopic?):
                return .tokenRefused(reason: answer.reason ?? .badDeviceToken)
            case (400, .unregistered):
                return .tokenInvalid(reason: reason)
            case (400, .badTopic), (400, .topicDisallowed), (400, .missingTopic):
                return .providerWrong(reason: reason)
            case (403, .expiredProviderToken):
                // The client already signed a new token and sent once more: try again later.
                return .temporary(reason: reason, retryAfter: answer.retryAfter)
            case (403, _):
                return .providerWrong(reason: reason)
            case (429, _), (500...599, _):
                return .temporary(reason: reason, retryAfter: answer.retryAfter)
            default:
                return .failed(reason: reason)
            }
        }
    }

    /// What an FCM response says.
    public static func meaning(of response: FCMResponse) -> Meaning {
        switch response {
        case .authFailure(let message):
            return .failed(reason: "FCM auth: \(message)")
        case .transportFailure(let message):
            return .temporary(reason: "network: \(message)", transport: true)
        case .destinationRefused(let message):
            // The provider's token_uri leads where it may not: the job waits, as for any
            // misconfigured provider, and is retried at once when the provider is updated.
            return .providerWrong(reason: message)
        case .answered(let status, let code, let retryAfter):
            let reason = code ?? "HTTP \(status)"
            if status == 200 { return .accepted }
            if code == "UNREGISTERED" || status == 404 { return .tokenInvalid(reason: "UNREGISTERED") }
            if status == 429 || code == "QUOTA_EXCEEDED" { return .temporary(reason: reason, retryAfter: retryAfter, minimum: 60) }
            if status >= 500 || code == "UNAVAILABLE" || code == "INTERNAL" {
                return .temporary(reason: reason, retryAfter: retryAfter)
            }
            return .failed(reason: reason)
        }
    }

    /// Whether a token refused by APNs is sent once more in the other environment before its
    /// answer counts: `BadDeviceToken` for a token whose environment is not known. Where it works,
    /// that environment is stored for the token.
    public static func triesOtherEnvironment(after response: APNsResponse, environmentKnown: Bool) -> Bool {
        guard !environmentKnown, case .answered(let answer) = response else { return false }
        return answer.status == 400 && answer.reason == .badDeviceToken
    }

    /// The job's outcome after an answer that means `meaning`.
    public func decide(_ meaning: Meaning, _ context: Context) -> JobOutcome {
        switch meaning {
        case .accepted:
            return .delivered
        case .tokenRefused(let reason, let unregisteredAt):
            if case .wait(let why) = context.verdict { return .retry(notBefore: waitingUntil(context), reason: why) }
            if let unregisteredAt, let registeredAt = context.registeredAt, registeredAt > unregisteredAt {
                return .failed(reason: "\(APNsReason.unregistered) (token registered again since)")
            }
            return .tokenInvalid(reason: reason.rawValue)
        case .tokenInvalid(let reason):
            return .tokenInvalid(reason: reason)
        case .providerWrong(let reason):
            return .retry(notBefore: waitingUntil(context), reason: "\(JobOutcome.waitingPrefix): \(reason)")
        case .temporary(let reason, let retryAfter, let minimum, let transport):
            return retry.retry(
                attempt: context.attempt, reason: reason, retryAfter: retryAfter, minimum: minimum, transport: transport,
                now: context.now)
        case .failed(let reason):
            return .failed(reason: reason)
        }
    }

    /// The job's outcome after an APNs response.
    public func decide(_ response: APNsResponse, _ context: Context) -> JobOutcome {
        decide(Self.meaning(of: response), context)
    }

    /// The job's outcome after an FCM response.
    public func decide(_ response: FCMResponse, _ context: Context) -> JobOutcome {
        decide(Self.meaning(of: response), context)
    }

    /// When a job that waits is tried again: on the retry schedule (never giving up), not before
    /// the context's `notBefore`.
    private func waitingUntil(_ context: Context) -> Date {
        let scheduled = context.now.addingTimeInterval(retry.delay(attempt: context.attempt))
        guard let notBefore = context.notBefore else { return scheduled }
        return max(notBefore, scheduled)
    }
}
