import Foundation
import PushCore
import Testing

import Delivery

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
}
