import Foundation
import ServerSupport
import Testing

/// The Foundation-free threads and locks the service runs on.
struct ThreadsTests {
    @Test func aThreadRunsItsBodyUnderItsName() async throws {
        let seen = Locked<String?>(nil)
        let done = ConditionLock()
        ServerThread.start(name: "threads-test-name-that-is-long") {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            seen.withLock { $0 = name.trimmingCharacters(in: .whitespacesAndNewlines) }
            done.withLock { done.broadcast() }
        }
        let deadline = Date().addingTimeInterval(5)
        done.withLock {
            while seen.withLock({ $0 }) == nil, done.wait(until: deadline) {}
        }
        // Linux keeps the first 15 bytes of a thread's name.
        #expect(seen.withLock { $0 } == "threads-test-na")
    }

    @Test func waitingUntilADeadlineTimesOutWithoutASignal() {
        let condition = ConditionLock()
        let start = Date()
        let signalled = condition.withLock { condition.wait(until: start.addingTimeInterval(0.05)) }
        #expect(!signalled)
        #expect(Date().timeIntervalSince(start) >= 0.045)
    }

    @Test func aBroadcastWakesEveryWaiter() {
        let condition = ConditionLock()
        let state = Locked((waiting: 0, released: false, woke: 0))
        for index in 0..<3 {
            ServerThread.start(name: "waiter-\(index)") {
                condition.withLock {
                    state.withLock { $0.waiting += 1 }
                    condition.broadcast()
                    while !state.withLock({ $0.released }) { condition.wait() }
                    state.withLock { $0.woke += 1 }
                    condition.broadcast()
                }
            }
        }
        let deadline = Date().addingTimeInterval(5)
        condition.withLock {
            while state.withLock({ $0.waiting }) < 3, condition.wait(until: deadline) {}
            state.withLock { $0.released = true }
            condition.broadcast()
            while state.withLock({ $0.woke }) < 3, condition.wait(until: deadline) {}
        }
        #expect(state.withLock { $0.woke } == 3)
    }

    @Test func theHeapIsTrimmedAtMostOncePerInterval() async throws {
        let interval = Duration.milliseconds(200)
        let trimmer = HeapTrimmer(interval: interval)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        var calls: [(start: ContinuousClock.Instant, end: ContinuousClock.Instant, trimmed: Bool)] = []
        // Ask twice in a row, then every 5 ms until it has trimmed twice. The condition is checked
        // after every wait, so a slow machine only makes this take longer.
        while calls.filter(\.trimmed).count < 2, clock.now < deadline {
            if calls.count >= 2 { try await Task.sleep(for: .milliseconds(5)) }
            let start = clock.now
            let trimmed = trimmer.trimIfDue()
            calls.append((start, clock.now, trimmed))
        }
        let trims = calls.filter(\.trimmed)
        #expect(calls.first?.trimmed == true, "the first call trims")
        try #require(trims.count == 2)
        // Never again sooner than the interval (bounds measured around each call)...
        #expect(trims[1].end - trims[0].start >= interval)
        // ...and every call it refused came within the interval of the first trim
        for call in calls where !call.trimmed { #expect(call.start - trims[0].end < interval) }
    }

    @Test func textHelpers() {
        #expect(" \t key \n".trimmingWhitespace == "key")
        #expect("".trimmingWhitespace == "")
        #expect("/data".appendingPathComponent("push.sqlite") == "/data/push.sqlite")
        #expect("/data/".appendingPathComponent("push.sqlite") == "/data/push.sqlite")
        #expect([0x00, 0x0f, 0xa0, 0xff].hexString == "000fa0ff")
    }
}
