import Foundation

/// Time, injected so that retry back-off and expiry can be tested without waiting.
public protocol PNClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Suspends for `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws
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
