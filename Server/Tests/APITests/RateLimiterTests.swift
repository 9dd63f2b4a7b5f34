import Foundation
import PushService
import PushTestSupport
import Testing

/// The token buckets on a manual clock: a refill is a step of the test, not a wait.
@Suite struct RateLimiterTests {
    let clock = ManualClock()
    let alice = Data("alice".utf8)
    let bob = Data("bob".utf8)

    @Test func aBucketHoldsTheBurstAndRefillsAtTheRate() {
        // Given 60 requests a minute, 3 at once
        let limiter = RateLimiter(perMinute: 60, burst: 3, clock: clock)
        // When a key asks 4 times at one moment
        let first = (0..<4).map { _ in limiter.allow(alice) }
        // Then the burst goes through and the fourth is refused, other keys untouched
        #expect(first == [true, true, true, false])
        #expect(limiter.allow(bob))
        // And a second later one more is allowed, and only one
        clock.advance(by: 1)
        #expect(limiter.allow(alice))
        #expect(!limiter.allow(alice))
        // And after a long pause the bucket holds the burst again, no more
        clock.advance(by: 600)
        #expect((0..<4).map { _ in limiter.allow(alice) } == [true, true, true, false])
    }

    @Test func aRateOfZeroAllowsEverything() {
        let limiter = RateLimiter(perMinute: 0, burst: 1, clock: clock)
        #expect((0..<100).allSatisfy { _ in limiter.allow(alice) })
    }
}
