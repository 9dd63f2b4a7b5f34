import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// The one retry loop: its delays, its limits (attempts, deadline, cancellation) and what it
/// retries by default. The callers' schedules are pinned in their own suites (token lifecycle,
/// quick reply, ringing scenarios).
@Suite struct RetryPolicyTests {
    let clock = SimulatedClock()

    /// An attempt that fails with `failures` in order, then succeeds.
    final class Script {
        var failures: [PNError]
        private(set) var calls = 0
        init(_ failures: [PNError]) { self.failures = failures }
        func next() -> PNResult<String> {
            calls += 1
            return failures.isEmpty ? .success("done") : .failure(failures.removeFirst())
        }
    }

    static let noAnswer = PNError(code: .networkError, message: "no answer")

    @Test func delaysDoubleUpToTheLongestWithoutJitter() {
        let policy = PNRetryPolicy(firstDelay: 1, maxDelay: 8)
        #expect((0..<6).map { policy.delay(beforeRetry: $0) } == [1, 2, 4, 8, 8, 8])
        #expect(policy.delay(beforeRetry: 10_000) == 8, "no overflow far out")
        #expect(PNRetryPolicy(firstDelay: 2, maxDelay: 4).delay(beforeRetry: 1) == 4)
    }

    @Test func jitterScalesEachDelayWithinItsRange() {
        let policy = PNRetryPolicy.tokenRegistration
        for retry in 0..<12 {
            let full = min(300, 2 * pow(2, Double(retry)))
            for _ in 0..<20 {
                let delay = policy.delay(beforeRetry: retry)
                #expect(delay >= full * 0.5 && delay <= full, "retry \(retry): \(delay)")
            }
        }
    }

    @Test func retriesUntilTheCallSucceedsWaitingOnTheClock() async {
        let script = Script([Self.noAnswer, PNError(code: .serverError, message: "down", httpStatus: 503)])
        let outcome = await PNRetryPolicy(firstDelay: 1, maxDelay: 8).run(on: clock) { script.next() }
        #expect((try? outcome.value.get()) == "done")
        #expect(outcome.attempts == 3)
        #expect(!outcome.interrupted)
        #expect(clock.sleeps == [1, 2])
    }

    @Test func stopsWhenTheAttemptsRunOut() async {
        let script = Script(Array(repeating: Self.noAnswer, count: 10))
        let outcome = await PNRetryPolicy(firstDelay: 2, maxDelay: 4, maxAttempts: 3).run(on: clock) { script.next() }
        #expect(outcome.attempts == 3)
        #expect(script.calls == 3)
        #expect(!outcome.interrupted)
        if case .failure(let error) = outcome.value { #expect(error.code == .networkError) } else { Issue.record("succeeded") }
        #expect(clock.sleeps == [2, 4])
    }

    @Test func stopsWhenTheNextWaitWouldEndAtTheDeadline() async {
        let script = Script(Array(repeating: Self.noAnswer, count: 50))
        let start = clock.now()
        let outcome = await PNRetryPolicy(firstDelay: 1, maxDelay: 8)
            .run(on: clock, until: start.addingTimeInterval(25)) { script.next() }
        #expect(outcome.attempts == 6)
        #expect(clock.sleeps == [1, 2, 4, 8, 8], "0 + 1 + 2 + 4 + 8 + 8 = 23; another 8 would end at 31")
        #expect(clock.now().timeIntervalSince(start) == 23)
    }

    @Test("By default no answer and 5xx are retried; 4xx, a 500 refused by the predicate and a lost session are not")
    func whatIsRetried() async {
        let policy = PNRetryPolicy(firstDelay: 1, maxDelay: 1)
        let cases: [(PNError, retriedByDefault: Bool)] = [
            (Self.noAnswer, true),
            (PNError(code: .serverError, message: "boom", httpStatus: 500), true),
            (PNError(code: .serverError, message: "bad", serverCode: "ERR_BAD_REQUEST", httpStatus: 400), false),
            (PNError(code: .serverError, message: "gone", serverCode: "AUTH_ERR_AUTH_TOKEN_NOT_FOUND", httpStatus: 401), false),
        ]
        for (error, retried) in cases {
            let script = Script([error])
            let outcome = await policy.run(on: clock) { script.next() }
            #expect(outcome.attempts == (retried ? 2 : 1), "\(error)")
        }
        let script = Script([PNError(code: .serverError, message: "boom", httpStatus: 500)])
        let outcome = await policy.run(on: clock, retryingIf: { $0.code == .networkError }) { script.next() }
        #expect(outcome.attempts == 1)
    }

    @Test func aCancelledTaskMakesNoFurtherAttempt() async {
        let clock = self.clock
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let script = Script(Array(repeating: Self.noAnswer, count: 5))
            return await PNRetryPolicy(firstDelay: 1, maxDelay: 8).run(on: clock) { script.next() }
        }.value
        #expect(outcome.attempts == 1)
        #expect(outcome.interrupted)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func aStepEndsTheRunWhenTheAttemptSaysSo() async {
        let outcome = await PNRetryPolicy(firstDelay: 1, maxDelay: 8).run(on: clock) { () async -> PNRetryStep<Int> in
            .finished(7)
        }
        #expect(outcome.value == 7)
        #expect(outcome.attempts == 1)
        #expect(clock.sleeps.isEmpty)
    }

    /// An actor whose attempts read and change its own state, as `TokenLifecycle`'s do.
    actor Counter {
        var count = 0
        func countToThree(_ clock: PNClock) async -> PNRetryOutcome<Int> {
            await PNRetryPolicy(firstDelay: 1, maxDelay: 8).run(isolation: self, on: clock) {
                count += 1
                return count < 3 ? .retry(count) : .finished(count)
            }
        }
    }

    @Test func attemptsRunInTheActorPassedAsIsolation() async {
        let outcome = await Counter().countToThree(clock)
        #expect(outcome.value == 3)
        #expect(outcome.attempts == 3)
        #expect(clock.sleeps == [1, 2])
    }

    @Test func tokenSchedulesKeepTheirDelaysAndLimits() {
        #expect(PNRetryPolicy.tokenRegistration.firstDelay == 2)
        #expect(PNRetryPolicy.tokenRegistration.maxDelay == 300)
        #expect(PNRetryPolicy.tokenRegistration.jitter == 0.5...1)
        #expect(PNRetryPolicy.tokenRegistration.maxAttempts == nil)
        #expect(PNRetryPolicy.tokenUnregistration.maxAttempts == 3)
        #expect(PNRetryPolicy.tokenUnregistration.firstDelay == 2)
    }
}
