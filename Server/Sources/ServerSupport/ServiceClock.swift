#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the service's background work takes its time from: the current date, and waits on a
/// ``ConditionLock`` that end at a date of this clock or when the lock is signalled.
///
/// The service runs on ``SystemClock``; tests hand a manual clock (PushTestSupport's
/// `ManualClock`) to a worker, the delivery engine or the rate limiter, and move its time
/// themselves, so an idle wait or a back-off is a step of the test, not a stretch of real time.
public protocol ServiceClock: Sendable {
    /// The current date.
    var now: Date { get }

    /// Releases `condition`'s lock until the lock is signalled or this clock reaches `deadline`,
    /// then takes it again. Returns false when the deadline passed. Call only inside
    /// `condition.withLock`; like ``ConditionLock/wait()`` it may return early, so wait in a loop
    /// that checks what it waits for.
    func wait(on condition: ConditionLock, until deadline: Date) -> Bool
}

/// The real clock: `Date()`, and `pthread_cond_timedwait` until the deadline.
public struct SystemClock: ServiceClock {
    /// Creates the clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// ``ConditionLock/wait(until:)``.
    public func wait(on condition: ConditionLock, until deadline: Date) -> Bool {
        condition.wait(until: deadline)
    }
}
