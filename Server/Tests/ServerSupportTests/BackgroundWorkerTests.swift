import Foundation
import PushTestSupport
import ServerSupport
import Testing

/// The one worker shape: passes, idle waits on the injected clock, wake-ups and stop. Every
/// test runs on a `ManualClock` and counts passes at moments when the worker is known to be
/// parked on the clock (`waitForWaiter(after:)`), so nothing here depends on how fast the machine is.
@Suite struct BackgroundWorkerTests {
    /// Passes run, and a gate a pass may wait at.
    final class Probe: @unchecked Sendable {
        // @unchecked: every field is only touched inside `lock.withLock`.
        let lock = ConditionLock()
        private var count = 0
        private var gateOpen = true
        private var waitingAtGate = false

        var passes: Int { lock.withLock { count } }

        /// Counts a pass; waits while the gate is closed.
        func pass() {
            lock.withLock {
                count += 1
                waitingAtGate = !gateOpen
                lock.broadcast()
                while !gateOpen { lock.wait() }
                waitingAtGate = false
            }
        }

        func closeGate() { lock.withLock { gateOpen = false } }

        func openGate() {
            lock.withLock {
                gateOpen = true
                lock.broadcast()
            }
        }

        /// Blocks (real time, at most a minute) until a pass waits at the gate.
        func waitForPassAtGate() -> Bool {
            let deadline = Date().addingTimeInterval(60)
            return lock.withLock {
                while !waitingAtGate, lock.wait(until: deadline) {}
                return waitingAtGate
            }
        }
    }

    /// A value set once by another thread, and a wait for it.
    final class Latch<Value: Sendable>: @unchecked Sendable {
        // @unchecked: `value` is only touched inside `lock.withLock`.
        private let lock = ConditionLock()
        private var value: Value?

        func set(_ newValue: Value) {
            lock.withLock {
                value = newValue
                lock.broadcast()
            }
        }

        var current: Value? { lock.withLock { value } }

        /// Blocks (real time, at most a minute) until the value is set.
        func wait() -> Value? {
            let deadline = Date().addingTimeInterval(60)
            return lock.withLock {
                while value == nil, lock.wait(until: deadline) {}
                return value
            }
        }
    }

    let clock = ManualClock()
    let probe = Probe()

    @Test func anIdleWorkerRunsOnePassPerIdleIntervalAndNoMore() throws {
        // Given a worker that idles 10 s between passes
        let worker = BackgroundWorker(name: "test-idle", idle: 10, clock: clock)
        let probe = probe
        worker.start {
            probe.pass()
            return .idle
        }
        defer { worker.stop(timeout: 60) }
        try #require(clock.waitForWaiter())
        #expect(probe.passes == 1)
        // When the clock moves 100 idle intervals, in steps short of one and then the rest
        for step in 1...100 {
            var mark = clock.mark
            clock.advance(by: 9.5)
            try #require(clock.waitForWaiter(after: mark))
            // Then it is parked again without a pass before the interval is over
            #expect(probe.passes == step)
            mark = clock.mark
            clock.advance(by: 0.5)
            try #require(clock.waitForWaiter(after: mark))
        }
        // And ran exactly one pass per interval: no busy loop
        #expect(probe.passes == 101)
    }

    @Test func aWakeCutsTheIdleWaitShort() throws {
        // Given a worker parked for an hour
        let worker = BackgroundWorker(name: "test-wake", idle: 3600, clock: clock)
        let probe = probe
        worker.start {
            probe.pass()
            return .idle
        }
        defer { worker.stop(timeout: 60) }
        try #require(clock.waitForWaiter())
        #expect(probe.passes == 1)
        // When it is woken, the clock untouched
        let mark = clock.mark
        worker.wake()
        try #require(clock.waitForWaiter(after: mark))
        // Then the next pass ran at once
        #expect(probe.passes == 2)
    }

    @Test func aWakeDuringAPassIsNotLost() throws {
        // Given a worker whose first pass is woken while it runs
        let worker = BackgroundWorker(name: "test-wake-pass", idle: 3600, clock: clock)
        let probe = probe
        probe.closeGate()
        worker.start {
            probe.pass()
            return .idle
        }
        defer { worker.stop(timeout: 60) }
        try #require(probe.waitForPassAtGate())
        worker.wake()
        probe.openGate()
        // When the pass ends and the worker idles
        try #require(clock.waitForWaiter())
        // Then the wake-up gave one more pass, and only one
        #expect(probe.passes == 2)
    }

    @Test func stopWaitsForThePassUnderWayAndStartsNoOther() throws {
        // Given a worker in the middle of a pass
        let worker = BackgroundWorker(name: "test-stop", idle: 0, clock: clock)
        let probe = probe
        probe.closeGate()
        worker.start {
            probe.pass()
            return .again
        }
        try #require(probe.waitForPassAtGate())
        // When it is stopped (from another thread: stop blocks)
        let stopped = Latch<Bool>()
        ServerThread.start(name: "test-stopper") { stopped.set(worker.stop(timeout: 60)) }
        // Then stop waits (on the worker's clock) while the pass runs
        try #require(clock.waitForWaiter())
        #expect(stopped.current == nil)
        #expect(worker.isRunning)
        // And returns once the pass ended and the thread with it
        probe.openGate()
        #expect(stopped.wait() == true)
        #expect(!worker.isRunning)
        // And no pass started after stop
        #expect(probe.passes == 1)
    }

    @Test func stopGivesUpAtItsTimeoutWhenThePassDoesNotEnd() throws {
        // Given a pass that does not end
        let worker = BackgroundWorker(name: "test-stuck", idle: 0, clock: clock)
        let probe = probe
        probe.closeGate()
        worker.start {
            probe.pass()
            return .again
        }
        defer { probe.openGate() }
        try #require(probe.waitForPassAtGate())
        let stopped = Latch<Bool>()
        ServerThread.start(name: "test-stopper") { stopped.set(worker.stop(timeout: 5)) }
        try #require(clock.waitForWaiter())
        // When the stop's 5 s pass on the worker's clock
        clock.advance(by: 5)
        // Then stop says the thread did not end
        #expect(stopped.wait() == false)
        #expect(worker.isRunning)
    }

    @Test func aPassChoosesItsIdleTimeAndTheEnd() async throws {
        // Given passes that idle until a date, then end the loop
        let worker = BackgroundWorker(name: "test-until", idle: 3600, clock: clock)
        let probe = probe
        let until = clock.now.addingTimeInterval(30)
        worker.start {
            probe.pass()
            return probe.passes == 1 ? .idleUntil(until) : .end
        }
        try #require(clock.waitForWaiter())
        let mark = clock.mark
        clock.advance(by: 29)
        try #require(clock.waitForWaiter(after: mark))
        #expect(probe.passes == 1)
        // When the date comes
        clock.advance(by: 1)
        // Then the second pass runs and ends the thread, without a stop
        let ended = await waitWhileProgressing("worker end", stall: 60, { worker.isRunning }) { !$0 }
        #expect(ended.done)
        #expect(probe.passes == 2)
    }

    @Test func theFirstPassComesAfterTheStartDelay() throws {
        let worker = BackgroundWorker(name: "test-delay", idle: 3600, clock: clock)
        let probe = probe
        worker.start(after: 60) {
            probe.pass()
            return .idle
        }
        defer { worker.stop(timeout: 60) }
        try #require(clock.waitForWaiter())
        #expect(probe.passes == 0)
        let mark = clock.mark
        clock.advance(by: 60)
        try #require(clock.waitForWaiter(after: mark))
        #expect(probe.passes == 1)
    }

    @Test func aWorkerNeverStartedStopsAtOnceAndDoesNotStartAfterwards() {
        let worker = BackgroundWorker(name: "test-never", idle: 1, clock: clock)
        #expect(worker.stop(timeout: 60))
        let probe = probe
        worker.start {
            probe.pass()
            return .idle
        }
        #expect(!worker.isRunning)
        #expect(probe.passes == 0)
    }

    /// What an owner keeps under its worker's lock, as the delivery engine does.
    final class Owned: @unchecked Sendable {
        // @unchecked: every field is only touched inside the worker's lock.
        var value = 0
        /// The pass whose wait last checked the condition.
        var waitingIn = 0
        var seen: [Int] = []
    }

    @Test func waitWhileEndsWhenTheConditionChangesOrTheWorkerStops() throws {
        // Given passes that wait on the worker's lock for a value the owner sets
        let worker = BackgroundWorker(name: "test-waitwhile", idle: 3600, clock: clock)
        let owned = Owned()
        let lock = worker.lock
        worker.start {
            lock.withLock {
                let ready = worker.waitWhile {
                    owned.waitingIn = owned.seen.count + 1
                    lock.broadcast()
                    return owned.value == 0
                }
                owned.seen.append(ready ? owned.value : -1)
                owned.value = 0
                lock.broadcast()
            }
            return .again
        }
        let deadline = Date().addingTimeInterval(60)
        // When the owner sets it under the lock and signals, once the first pass waits
        lock.withLock {
            while owned.waitingIn < 1, lock.wait(until: deadline) {}
            owned.value = 7
            lock.broadcast()
            while owned.waitingIn < 2, lock.wait(until: deadline) {}
        }
        // Then that pass saw it; and stopping ends the second pass's wait
        #expect(worker.stop(timeout: 60))
        #expect(lock.withLock { owned.seen } == [7, -1])
    }
}
