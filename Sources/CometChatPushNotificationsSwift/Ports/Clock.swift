import Foundation

/// Time, injected so that retry back-off and expiry can be tested without waiting.
public protocol PNClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Suspends for `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws
    /// Suspends for `seconds` on a timer that repeats for as long as a state lasts (the refresh
    /// of the conversation the app shows), as opposed to the back-off between two attempts;
    /// throws `CancellationError` when the task is cancelled. The default is
    /// ``sleep(seconds:)``. The simulated clock fires such a timer only when a test advances it,
    /// so a timer that repeats never runs through virtual time by itself.
    func sleep(timerSeconds seconds: Double) async throws
}

extension PNClock {
    /// Waits with ``sleep(seconds:)``: on a real clock a timer is a sleep like any other.
    public func sleep(timerSeconds seconds: Double) async throws {
        try await sleep(seconds: seconds)
    }
}

/// The wall clock.
public struct PNSystemClock: PNClock {
    /// Creates the wall clock.
    public init() {}
    /// The current time.
    public func now() -> Date { Date() }
    /// Sleeps for real.
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}
