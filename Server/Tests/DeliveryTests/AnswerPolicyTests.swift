import APNs
import Delivery
import FCM
import Foundation
import PushCore
import ServerSupport
import Testing

/// The one decision about a provider's answer, as a table: each APNs and FCM answer (and what
/// the sender finds itself), the job's outcome, and what the answer tells the breaker.
@Suite struct AnswerPolicyTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// What a job's outcome should be.
    enum Expected: Sendable, CustomStringConvertible {
        case delivered
        /// A retry with this reason, this many seconds after the answer (a range: jitter).
        case retry(String, ClosedRange<TimeInterval>)
        case failed(String)
        case tokenInvalid(String)

        var description: String {
            switch self {
            case .delivered: "delivered"
            case .retry(let reason, let range): "retry \(reason) in \(range)"
            case .failed(let reason): "failed \(reason)"
            case .tokenInvalid(let reason): "tokenInvalid \(reason)"
            }
        }

        func matches(_ outcome: JobOutcome) -> Bool {
            switch (self, outcome) {
            case (.delivered, .delivered): return true
            case (.retry(let reason, let range), .retry(let notBefore, let actual)):
                return reason == actual && range.contains(notBefore.timeIntervalSince(AnswerPolicyTests.t0))
            case (.failed(let reason), .failed(let actual)), (.tokenInvalid(let reason), .tokenInvalid(let actual)):
                return reason == actual
            default: return false
            }
        }
    }

    /// One row: an answer, the job's facts, the outcome, the breaker's answer.
    struct Row: Sendable, CustomTestStringConvertible {
        enum Answer: Sendable {
            case apns(APNsResponse)
            case fcm(FCMResponse)
            case meaning(AnswerPolicy.Meaning)
        }

        let name: String
        let answer: Answer
        var attempt = 1
        var verdict: ProviderBreakers.Verdict?
        var registeredAt: Date?
        var notBefore: Date?
        let expected: Expected
        let breaker: ProviderBreakers.Answer

        var testDescription: String { name }

        var meaning: AnswerPolicy.Meaning {
            switch answer {
            case .apns(let response): AnswerPolicy.meaning(of: response)
            case .fcm(let response): AnswerPolicy.meaning(of: response)
            case .meaning(let meaning): meaning
            }
        }
    }

    static func apns(
        _ status: Int, _ reason: String? = nil, retryAfter: TimeInterval? = nil, unregisteredAt: Date? = nil
    )
        -> Row.Answer
    {
        .apns(
            .answered(
                APNsAnswer(
                    status: status, reason: reason.map(APNsReason.init(rawValue:)), unregisteredAt: unregisteredAt, retryAfter: retryAfter))
        )
    }

    static func fcm(_ status: Int, _ code: String? = nil, retryAfter: TimeInterval? = nil) -> Row.Answer {
        .fcm(.answered(status: status, errorCode: code, retryAfter: retryAfter))
    }

    /// The first retry of the default schedule: 1 s, up to 20 % longer.
    static let first: ClosedRange<TimeInterval> = 1...1.2
    static let waiting = JobOutcome.waitingPrefix
    static let suspect = ProviderBreakers.Verdict.wait("\(JobOutcome.waitingPrefix)? BadDeviceToken for a token that delivered before")

    static let rows: [Row] = [
        // APNs
        Row(name: "APNs 200", answer: apns(200), expected: .delivered, breaker: .accepted),
        Row(
            name: "APNs 400 BadDeviceToken, dead", answer: apns(400, "BadDeviceToken"), verdict: .dead,
            expected: .tokenInvalid("BadDeviceToken"), breaker: .token(.badDeviceToken)),
        Row(
            name: "APNs 400 BadDeviceToken, the breaker suspects the provider", answer: apns(400, "BadDeviceToken"),
            verdict: suspect, expected: .retry("\(waiting)? BadDeviceToken for a token that delivered before", first),
            breaker: .token(.badDeviceToken)),
        Row(
            name: "APNs 400 DeviceTokenNotForTopic, dead", answer: apns(400, "DeviceTokenNotForTopic"), verdict: .dead,
            expected: .tokenInvalid("DeviceTokenNotForTopic"), breaker: .token(.deviceTokenNotForTopic)),
        Row(
            name: "APNs 400 BadTopic", answer: apns(400, "BadTopic"), expected: .retry("\(waiting): BadTopic", first),
            breaker: .provider("BadTopic")),
        Row(
            name: "APNs 400 TopicDisallowed", answer: apns(400, "TopicDisallowed"), expected: .retry("\(waiting): TopicDisallowed", first),
            breaker: .provider("TopicDisallowed")),
        Row(
            name: "APNs 400 MissingTopic", answer: apns(400, "MissingTopic"), expected: .retry("\(waiting): MissingTopic", first),
            breaker: .provider("MissingTopic")),
        Row(name: "APNs 400 PayloadEmpty", answer: apns(400, "PayloadEmpty"), expected: .failed("PayloadEmpty"), breaker: .other),
        Row(name: "APNs 400 Unregistered", answer: apns(400, "Unregistered"), expected: .tokenInvalid("Unregistered"), breaker: .other),
        Row(
            name: "APNs 403 InvalidProviderToken", answer: apns(403, "InvalidProviderToken"),
            expected: .retry("\(waiting): InvalidProviderToken", first), breaker: .provider("InvalidProviderToken")),
        Row(
            name: "APNs 403 BadEnvironmentKeyInToken", answer: apns(403, "BadEnvironmentKeyInToken"),
            expected: .retry("\(waiting): BadEnvironmentKeyInToken", first), breaker: .provider("BadEnvironmentKeyInToken")),
        Row(
            name: "APNs 403 without a reason", answer: apns(403), expected: .retry("\(waiting): HTTP 403", first),
            breaker: .provider("HTTP 403")),
        Row(
            name: "APNs 403 ExpiredProviderToken (after the client's own second try)", answer: apns(403, "ExpiredProviderToken"),
            expected: .retry("ExpiredProviderToken", first), breaker: .other),
        Row(name: "APNs 404 BadPath", answer: apns(404, "BadPath"), expected: .failed("BadPath"), breaker: .other),
        Row(
            name: "APNs 410 Unregistered, dead", answer: apns(410, "Unregistered", unregisteredAt: t0.addingTimeInterval(-60)),
            verdict: .dead, registeredAt: t0.addingTimeInterval(-3600), expected: .tokenInvalid("Unregistered"),
            breaker: .token(.unregistered)),
        Row(
            name: "APNs 410 older than the token's last registration",
            answer: apns(410, "Unregistered", unregisteredAt: t0.addingTimeInterval(-3600)), verdict: .dead,
            registeredAt: t0.addingTimeInterval(-60), expected: .failed("Unregistered (token registered again since)"),
            breaker: .token(.unregistered)),
        Row(
            name: "APNs 410 without a body", answer: apns(410), verdict: .dead, expected: .tokenInvalid("Unregistered"),
            breaker: .token(.unregistered)),
        Row(
            name: "APNs 413 PayloadTooLarge", answer: apns(413, "PayloadTooLarge"), expected: .failed("PayloadTooLarge"),
            breaker: .other),
        Row(
            name: "APNs 429 TooManyRequests with Retry-After", answer: apns(429, "TooManyRequests", retryAfter: 30),
            expected: .retry("TooManyRequests", 30...30), breaker: .other),
        Row(
            name: "APNs 500 InternalServerError", answer: apns(500, "InternalServerError"), expected: .retry("InternalServerError", first),
            breaker: .other),
        Row(
            name: "APNs 503 ServiceUnavailable with Retry-After", answer: apns(503, "ServiceUnavailable", retryAfter: 5),
            expected: .retry("ServiceUnavailable", 5...5), breaker: .other),
        Row(
            name: "APNs 503 on the last attempt", answer: apns(503, "ServiceUnavailable"), attempt: 8,
            expected: .failed("ServiceUnavailable (gave up after 8 attempts)"), breaker: .other),
        Row(
            name: "APNs transport failure", answer: .apns(.transportFailure(message: "connection reset")),
            expected: .retry("network: connection reset", 0.05...0.06), breaker: .other),
        Row(
            name: "APNs transport failure again", answer: .apns(.transportFailure(message: "connection reset")), attempt: 2,
            expected: .retry("network: connection reset", first), breaker: .other),
        Row(
            name: "APNs token that is not hex (not sent)", answer: .apns(.rejectedLocally(reason: .badDeviceToken)),
            expected: .tokenInvalid("BadDeviceToken"), breaker: .other),
        Row(
            name: "APNs payload too large (not sent)", answer: .apns(.rejectedLocally(reason: .payloadTooLarge)),
            expected: .failed("PayloadTooLarge"), breaker: .other),
        // FCM
        Row(name: "FCM 200", answer: fcm(200), expected: .delivered, breaker: .accepted),
        Row(name: "FCM 404", answer: fcm(404, "NOT_FOUND"), expected: .tokenInvalid("UNREGISTERED"), breaker: .other),
        Row(name: "FCM 400 UNREGISTERED", answer: fcm(400, "UNREGISTERED"), expected: .tokenInvalid("UNREGISTERED"), breaker: .other),
        Row(
            name: "FCM 429 QUOTA_EXCEEDED: at least a minute", answer: fcm(429, "QUOTA_EXCEEDED"),
            expected: .retry("QUOTA_EXCEEDED", 60...60), breaker: .other),
        Row(
            name: "FCM 429 with a longer Retry-After", answer: fcm(429, "QUOTA_EXCEEDED", retryAfter: 120),
            expected: .retry("QUOTA_EXCEEDED", 120...120), breaker: .other),
        Row(name: "FCM 503 UNAVAILABLE", answer: fcm(503, "UNAVAILABLE"), expected: .retry("UNAVAILABLE", first), breaker: .other),
        Row(name: "FCM 500 INTERNAL", answer: fcm(500, "INTERNAL"), expected: .retry("INTERNAL", first), breaker: .other),
        Row(name: "FCM 400 INVALID_ARGUMENT", answer: fcm(400, "INVALID_ARGUMENT"), expected: .failed("INVALID_ARGUMENT"), breaker: .other),
        Row(
            name: "FCM 403 SENDER_ID_MISMATCH", answer: fcm(403, "SENDER_ID_MISMATCH"), expected: .failed("SENDER_ID_MISMATCH"),
            breaker: .other),
        Row(
            name: "FCM 401 THIRD_PARTY_AUTH_ERROR", answer: fcm(401, "THIRD_PARTY_AUTH_ERROR"),
            expected: .failed("THIRD_PARTY_AUTH_ERROR"), breaker: .other),
        Row(name: "FCM 418 without a body", answer: fcm(418), expected: .failed("HTTP 418"), breaker: .other),
        Row(
            name: "FCM service account refused", answer: .fcm(.authFailure("invalid_grant")), expected: .failed("FCM auth: invalid_grant"),
            breaker: .other),
        Row(
            name: "FCM transport failure", answer: .fcm(.transportFailure("timeout")), expected: .retry("network: timeout", 0.05...0.06),
            breaker: .other),
        Row(
            name: "FCM token_uri refused", answer: .fcm(.destinationRefused("destination refused: 127.0.0.1 is loopback")),
            expected: .retry("\(waiting): destination refused: 127.0.0.1 is loopback", first),
            breaker: .provider("destination refused: 127.0.0.1 is loopback")),
        // What the sender finds itself
        Row(
            name: "an open breaker holds the job until its next probe",
            answer: .meaning(.providerWrong(reason: "BadTopic for 50 of its last 50 answers and no 200")),
            notBefore: t0.addingTimeInterval(100),
            expected: .retry("\(waiting): BadTopic for 50 of its last 50 answers and no 200", 100...100),
            breaker: .provider("BadTopic for 50 of its last 50 answers and no 200")),
        Row(
            name: "the provider cannot be read", answer: .meaning(.temporary(reason: "provider lookup failed")),
            expected: .retry("provider lookup failed", first), breaker: .other),
        Row(
            name: "no such provider", answer: .meaning(.failed(reason: "provider apns-9 not found")),
            expected: .failed("provider apns-9 not found"), breaker: .other),
    ]

    @Test(arguments: rows)
    func theOutcomeOfEachAnswer(_ row: Row) {
        let policy = AnswerPolicy(retry: RetryPolicy())
        let context = AnswerPolicy.Context(
            attempt: row.attempt, now: Self.t0, verdict: row.verdict, registeredAt: row.registeredAt, notBefore: row.notBefore)
        let outcome = policy.decide(row.meaning, context)
        #expect(row.expected.matches(outcome), "\(row.name): \(outcome), expected \(row.expected)")
        #expect(row.meaning.breakerAnswer == row.breaker, "\(row.name)")
    }

    @Test func onlyATokenOfUnknownEnvironmentRefusedAsBadDeviceTokenIsTriedInTheOther() {
        let bad = APNsResponse.answered(APNsAnswer(status: 400, reason: .badDeviceToken))
        #expect(AnswerPolicy.triesOtherEnvironment(after: bad, environmentKnown: false))
        #expect(!AnswerPolicy.triesOtherEnvironment(after: bad, environmentKnown: true))
        for other in [
            APNsResponse.answered(APNsAnswer(status: 400, reason: .deviceTokenNotForTopic)),
            .answered(APNsAnswer(status: 410, reason: .unregistered)), .answered(APNsAnswer(status: 200)),
            .transportFailure(message: "reset"), .rejectedLocally(reason: .badDeviceToken),
        ] {
            #expect(!AnswerPolicy.triesOtherEnvironment(after: other, environmentKnown: false), "\(other)")
        }
    }
}
