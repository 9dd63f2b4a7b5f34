import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// Virtual time. A sleep within ``autoAdvanceLimit`` of the start returns at once and moves the
/// clock forward, so retries with back-off run instantly and their delays can be inspected;
/// a sleep past the limit waits for ``advance(by:)`` (so a retry loop against a network that
/// never comes back does not spin). A repeating timer's sleep (``sleep(timerSeconds:)``)
/// always waits for ``advance(by:)``.
public final class SimulatedClock: PNClock, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.
    private struct Sleeper {
        let id: Int
        let deadline: Date
        let continuation: CheckedContinuation<Void, Error>
    }

    private struct State {
        var now: Date
        var sleeps: [Double] = []
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state: PNLocked<State>
    private let start: Date
    /// How far past the start a sleep may auto-advance the clock, in seconds. Default: a day.
    public let autoAdvanceLimit: TimeInterval

    /// Creates a clock at `start`.
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000), autoAdvanceLimit: TimeInterval = 86_400) {
        self.start = start
        self.autoAdvanceLimit = autoAdvanceLimit
        state = PNLocked(State(now: start))
    }

    /// The virtual time.
    public func now() -> Date { state.withLock { $0.now } }

    /// Every sleep asked for, in seconds, in order.
    public var sleeps: [Double] { state.withLock { $0.sleeps } }

    /// Sleeps that are waiting for ``advance(by:)``.
    public var suspendedSleepers: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps in virtual time.
    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        let immediate = state.withLock { state -> Bool in
            state.sleeps.append(seconds)
            let deadline = state.now.addingTimeInterval(seconds)
            guard deadline.timeIntervalSince(start) <= autoAdvanceLimit else { return false }
            state.now = deadline
            return true
        }
        if immediate {
            await Task.yield()
            try Task.checkCancellation()
            return
        }
        try await waitForAdvance(seconds: seconds)
    }

    /// Sleeps on a repeating timer (the refresh of the conversation the app shows): never
    /// auto-advanced, whatever ``autoAdvanceLimit`` is, so the timer fires only when a test calls
    /// ``advance(by:)``; recorded in ``sleeps`` and counted in ``suspendedSleepers`` as any sleep.
    public func sleep(timerSeconds seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock { $0.sleeps.append(seconds) }
        try await waitForAdvance(seconds: seconds)
    }

    /// Waits until ``advance(by:)`` reaches `seconds` from now.
    private func waitForAdvance(seconds: Double) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let deadline = state.withLock { $0.now.addingTimeInterval(seconds) }
                state.withLock { $0.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation)) }
                if Task.isCancelled { resume(id: id, throwing: CancellationError()) }
            }
        } onCancel: {
            resume(id: id, throwing: CancellationError())
        }
    }

    private func resume(id: Int, throwing error: Error?) {
        let sleeper = state.withLock { state -> Sleeper? in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index)
        }
        if let error { sleeper?.continuation.resume(throwing: error) } else { sleeper?.continuation.resume() }
    }

    /// Moves the clock forward and wakes the sleeps that are due.
    public func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
