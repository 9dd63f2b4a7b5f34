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
        let trimmer = HeapTrimmer(interval: .milliseconds(200))
        let start = ContinuousClock.now
        #expect(trimmer.trimIfDue())
        #expect(!trimmer.trimIfDue())
        // Ask until it trims again (deadline 10 s): never before the interval has passed
        var trimmedAgain = false
        while !trimmedAgain, ContinuousClock.now - start < .seconds(10) {
            trimmedAgain = trimmer.trimIfDue()
            if !trimmedAgain { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(trimmedAgain)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(!trimmer.trimIfDue())
    }

    @Test func textHelpers() {
        #expect(" \t key \n".trimmingWhitespace == "key")
        #expect("".trimmingWhitespace == "")
        #expect("/data".appendingPathComponent("push.sqlite") == "/data/push.sqlite")
        #expect("/data/".appendingPathComponent("push.sqlite") == "/data/push.sqlite")
        #expect([0x00, 0x0f, 0xa0, 0xff].hexString == "000fa0ff")
    }
}
