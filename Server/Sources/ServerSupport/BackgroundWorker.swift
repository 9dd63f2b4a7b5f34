#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one shape of the service's background loops (the delivery engine's claiming and
/// finishing, webhook posting, the retention purge): a named thread (``ServerThread``) that
/// runs a pass over and over and idles between passes on an injected ``ServiceClock``.
///
/// - ``start(after:_:)`` starts the thread with its pass; each pass says what comes next
///   (``Next``): another pass at once, an idle wait, or the end of the loop.
/// - ``wake()`` ends the idle wait under way, or the next one when it comes during a pass, so a
///   wake-up is never lost; a pass that starts after it has seen it.
/// - ``stop(timeout:)`` ends the loop after the pass under way (an idle wait ends at once) and
///   waits for the thread to end.
///
/// The worker's state is guarded by ``lock``, which several workers and their owner may share:
/// the delivery engine keeps its counters under the lock of its two workers, waits on it inside
/// a pass with ``waitWhile(_:)`` and signals it when they change, without a lock of its own.
public final class BackgroundWorker: @unchecked Sendable {
    // @unchecked: `state` is only touched inside `lock.withLock`; the rest are constants.

    /// What a pass asks for next.
    public enum Next: Sendable, Equatable {
        /// Another pass at once.
        case again
        /// Idle for the worker's idle interval (``wake()`` cuts it short).
        case idle
        /// Idle for this many seconds (``wake()`` cuts it short).
        case idleFor(TimeInterval)
        /// Idle until this date of the worker's clock (``wake()`` cuts it short).
        case idleUntil(Date)
        /// The loop is over: the thread ends.
        case end
    }

    private struct State {
        var started = false
        var running = false
        var stopping = false
        var woken = false
    }

    /// The thread's name (the first 15 bytes show in `top` and `perf`).
    public let name: String
    /// The lock that guards the worker's state, and whatever its owner keeps with it.
    public let lock: ConditionLock
    /// Where the worker's time comes from.
    public let clock: any ServiceClock
    /// How long ``Next/idle`` waits, in seconds.
    public let idleInterval: TimeInterval
    private var state = State()

    /// Creates a worker; ``start(after:_:)`` runs it.
    /// - Parameters:
    ///   - name: the thread's name.
    ///   - idle: the idle interval of ``Next/idle``, in seconds.
    ///   - clock: where the worker's time comes from (``SystemClock`` in the service).
    ///   - lock: the lock of the worker's state; pass one to share it with other workers.
    public init(name: String, idle: TimeInterval, clock: any ServiceClock = SystemClock(), lock: ConditionLock = ConditionLock()) {
        self.name = name
        self.idleInterval = idle
        self.clock = clock
        self.lock = lock
    }

    /// Starts the thread, which runs `pass` until it returns ``Next/end`` or the worker is
    /// stopped; the first pass comes after an idle wait of `delay` seconds (``wake()`` cuts it
    /// short), at once by default. A worker starts once: later calls, and a call after
    /// ``stop(timeout:)``, do nothing.
    public func start(after delay: TimeInterval = 0, _ pass: @escaping @Sendable () -> Next) {
        let begins = lock.withLock { () -> Bool in
            guard !state.started else { return false }
            state.started = true
            state.running = !state.stopping
            return state.running
        }
        guard begins else { return }
        ServerThread.start(name: name) { [self] in
            run(first: delay > 0 ? .idleFor(delay) : .again, pass)
        }
    }

    /// Ends the idle wait under way, or the next one if a pass is running.
    public func wake() {
        lock.withLock { wakeInsideLock() }
    }

    /// ``wake()`` for a caller that holds ``lock`` (inside `lock.withLock`).
    public func wakeInsideLock() {
        state.woken = true
        lock.broadcast()
    }

    /// Inside `lock.withLock`, during a pass: waits, releasing the lock, while `condition` holds
    /// (re-checked whenever the lock is signalled) and the worker is not stopping. Returns false
    /// when the worker is stopping.
    public func waitWhile(_ condition: () -> Bool) -> Bool {
        while !state.stopping, condition() { lock.wait() }
        return !state.stopping
    }

    /// Whether the thread runs (started, and not ended yet).
    public var isRunning: Bool { lock.withLock { state.running } }

    /// Ends the loop: no pass starts after this call, an idle wait or a ``waitWhile(_:)`` ends
    /// at once, and the pass under way finishes. Waits up to `timeout` seconds of the worker's
    /// clock for the thread to end; returns whether it ended. Never call it from a pass.
    @discardableResult
    public func stop(timeout: TimeInterval) -> Bool {
        let deadline = clock.now.addingTimeInterval(timeout)
        return lock.withLock {
            state.stopping = true
            lock.broadcast()
            while state.running, clock.wait(on: lock, until: deadline) {}
            return !state.running
        }
    }

    private func run(first: Next, _ pass: @Sendable () -> Next) {
        var next = first
        while true {
            let deadline: Date?
            switch next {
            case .again: deadline = nil
            case .idle: deadline = clock.now.addingTimeInterval(idleInterval)
            case .idleFor(let seconds): deadline = clock.now.addingTimeInterval(seconds)
            case .idleUntil(let date): deadline = date
            case .end: deadline = nil
            }
            let goesOn = lock.withLock { () -> Bool in
                if let deadline {
                    while !state.woken, !state.stopping, clock.wait(on: lock, until: deadline) {}
                }
                // A wake-up asks for one pass that starts after it: this one.
                state.woken = false
                return !state.stopping && next != .end
            }
            guard goesOn else { break }
            next = pass()
        }
        lock.withLock {
            state.running = false
            lock.broadcast()
        }
    }
}
