#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif
import CSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a mutex; the lock of this package that needs neither Foundation nor
/// a particular OS version.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched between `pthread_mutex_lock` and `unlock`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// Creates the box.
    public init(_ value: Value) {
        self.value = value
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// A mutex with a condition variable: the `NSCondition` of this package.
///
/// Guard shared state with `withLock`; inside it, `wait()` releases the lock until
/// `signal()`/`broadcast()` (or a spurious wake-up: always wait in a loop).
public final class ConditionLock: @unchecked Sendable {
    // @unchecked: the pthread objects are thread-safe by contract.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// Creates an unlocked condition lock.
    public init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Releases the lock until signalled, then takes it again. Call only inside `withLock`.
    public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Like `wait()`, but gives up at `deadline`. Returns false when the deadline passed.
    /// Call only inside `withLock`.
    @discardableResult
    public func wait(until deadline: Date) -> Bool {
        let seconds = deadline.timeIntervalSince1970
        guard seconds.isFinite else {
            wait()
            return true
        }
        let whole = seconds.rounded(.down)
        var time = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &time) == 0
    }

    /// Wakes one waiter.
    public func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiter.
    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// Dedicated threads (the store and network loops), without Foundation's `Thread`.
public enum ServerThread {
    private final class Start {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a detached thread named `name` (the first 15 bytes show in `top` and `perf`)
    /// that runs `body`.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
                csystem_set_thread_name(start.name)
                start.body()
                return nil
            }, context)
        precondition(status == 0, "pthread_create failed: \(status)")
        pthread_detach(thread)
    }
}

/// Gives freed heap memory back to the kernel while the service is busy.
///
/// glibc's malloc returns memory only from the top of each heap; the pages of requests that
/// ended in the middle stay resident until reused. Under a burst of deliveries that made the
/// peak resident size ~10 MB larger than the live heap. `trimIfDue()` runs `malloc_trim` at
/// most every `interval` (it walks the heaps: well under a millisecond at these sizes).
public final class HeapTrimmer: Sendable {
    private let interval: Duration
    private let last = Locked<ContinuousClock.Instant?>(nil)

    /// Creates a trimmer that trims at most once per `interval`.
    public init(interval: Duration = .milliseconds(100)) {
        self.interval = interval
    }

    /// Trims if the last trim was at least `interval` ago; returns whether it trimmed.
    @discardableResult
    public func trimIfDue() -> Bool {
        let now = ContinuousClock.now
        let due = last.withLock { last -> Bool in
            if let previous = last, now - previous < interval { return false }
            last = now
            return true
        }
        if due { _ = csystem_trim_heap() }
        return due
    }
}
