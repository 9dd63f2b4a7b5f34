import Foundation
import ServerSupport

/// A ``ServiceClock`` whose time moves only when the test moves it: a worker idling on it waits
/// until ``advance(by:)`` passes its deadline (or it is woken), however long that takes in real
/// time, so a test counts a worker's passes instead of timing them.
///
/// ``waitForWaiter(after:timeout:)`` blocks until a thread waits on the clock that began waiting
/// after a ``mark``: a test moves the time only once the worker is parked again, and knows it is
/// parked, not busy.
public final class ManualClock: ServiceClock, @unchecked Sendable {
    // @unchecked: `time`, `waits` and `waiting` are only touched inside `guardLock.withLock`.
    private let guardLock = ConditionLock()
    private var time: Date
    /// Waits begun so far: each wait's number.
    private var waits = 0
    /// The waits under way: their numbers and conditions.
    private var waiting: [(number: Int, condition: ConditionLock)] = []

    /// A clock that reads `start` until it is advanced.
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        time = start
    }

    /// The clock's time.
    public var now: Date { guardLock.withLock { time } }

    /// Waits until signalled or until ``advance(by:)`` reaches `deadline`.
    public func wait(on condition: ConditionLock, until deadline: Date) -> Bool {
        // Registered before the time is read, under the clock's lock: an advance either came
        // before (and is seen here) or finds this waiter and signals it once it waits.
        let number = guardLock.withLock { () -> Int? in
            guard time < deadline else { return nil }
            waits += 1
            waiting.append((waits, condition))
            guardLock.broadcast()
            return waits
        }
        guard let number else { return false }
        condition.wait()
        return guardLock.withLock { () -> Bool in
            waiting.removeAll { $0.number == number }
            guardLock.broadcast()
            return time < deadline
        }
    }

    /// Moves the time forward and wakes every thread waiting on the clock (each checks its own
    /// deadline and what it waits for).
    public func advance(by seconds: TimeInterval) {
        let conditions = guardLock.withLock { () -> [ConditionLock] in
            time = time.addingTimeInterval(seconds)
            return waiting.map(\.condition)
        }
        for condition in conditions { condition.withLock { condition.broadcast() } }
    }

    /// How many threads wait on the clock now.
    public var waiters: Int { guardLock.withLock { waiting.count } }

    /// How many waits on the clock have begun so far: ``waitForWaiter(after:timeout:)`` waits for
    /// one that begins after this.
    public var mark: Int { guardLock.withLock { waits } }

    /// Blocks (real time, at most `timeout` seconds) until a thread waits on the clock whose
    /// wait began after `mark` (0: any wait); returns whether one does.
    @discardableResult
    public func waitForWaiter(after mark: Int = 0, timeout: TimeInterval = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return guardLock.withLock {
            while !waiting.contains(where: { $0.number > mark }), guardLock.wait(until: deadline) {}
            return waiting.contains { $0.number > mark }
        }
    }
}
