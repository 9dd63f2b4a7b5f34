import Foundation
import PushCore
import ServerSupport
import Testing

import CurlHTTP
import Delivery

/// The one back-off type and each of its users' schedules: push retries, webhooks, the
/// breakers' probes and the HTTP/2 client's reconnections.
@Suite("Retry policy")
struct RetryPolicyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func delay(_ outcome: JobOutcome) -> TimeInterval? {
        if case .retry(let notBefore, _) = outcome { return notBefore.timeIntervalSince(now) }
        return nil
    }

    @Test("A transport failure is retried at once, then on the exponential schedule")
    func transportSchedule() throws {
        let policy = RetryPolicy()
        let first = try #require(delay(policy.retry(attempt: 1, reason: "network", retryAfter: nil, transport: true, now: now)))
        let second = try #require(delay(policy.retry(attempt: 2, reason: "network", retryAfter: nil, transport: true, now: now)))
        let third = try #require(delay(policy.retry(attempt: 3, reason: "network", retryAfter: nil, transport: true, now: now)))
        #expect(first >= 0.05 && first < 0.07)
        #expect(second >= 1 && second < 1.21)
        #expect(third >= 2 && third < 2.41)
    }

    @Test("An answered failure starts at the base delay; Retry-After wins; the last attempt fails")
    func answeredSchedule() throws {
        let policy = RetryPolicy()
        let first = try #require(delay(policy.retry(attempt: 1, reason: "503", retryAfter: nil, now: now)))
        #expect(first >= 1 && first < 1.21)
        #expect(delay(policy.retry(attempt: 1, reason: "429", retryAfter: 7, transport: true, now: now)) == 7)
        guard case .failed = policy.retry(attempt: policy.maxAttempts, reason: "network", retryAfter: nil, transport: true, now: now)
        else {
            Issue.record("the last attempt was not recorded as failed")
            return
        }
    }

    @Test("Without jitter the schedule is exact: the base doubling per attempt up to the cap")
    func exactSchedule() {
        let policy = RetryPolicy.exact(from: 0.5, upTo: 6)
        #expect((1...6).map { policy.delay(attempt: $0) } == [0.5, 1, 2, 4, 6, 6])
        #expect(policy.delay(attempt: 1_000) == 6, "no overflow however many attempts")
        #expect(policy.delay(attempt: 3, retryAfter: 60) == 6, "Retry-After is capped too")
        #expect(policy.maxAttempts == .max)
    }

    @Test("Jitter lengthens each delay by up to its fraction, never shortens it")
    func jitterBounds() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: 2, maxDelay: 100, jitter: 0.5)
        for _ in 0..<200 {
            let delay = policy.delay(attempt: 3)
            #expect(delay >= 8 && delay < 12)
        }
        #expect(policy.delay(attempt: 3, retryAfter: 7) == 7, "Retry-After is taken as it is")
    }

    @Test("Each user's schedule")
    func theUsersSchedules() {
        // The HTTP/2 client's reconnections: 50 ms doubling to 5 s, exact.
        let reconnect = HTTP2Client.Configuration().reconnect
        #expect((1...9).map { reconnect.delay(attempt: $0) } == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5, 5])
        // The probes of an open breaker: 1 s doubling to 300 s, exact.
        let probe = ProviderBreakers.Settings().probe
        #expect((1...11).map { probe.delay(attempt: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
        // Push retries: 1 s doubling to 900 s with up to 20 % jitter, 8 attempts.
        let push = DeliveryConfiguration().retry
        #expect(push.maxAttempts == 8 && push.jitter == 0.2)
        let fourth = push.delay(attempt: 4)
        #expect(fourth >= 8 && fourth < 9.6)
    }
}
