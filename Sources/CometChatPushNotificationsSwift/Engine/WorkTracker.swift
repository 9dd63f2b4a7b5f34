import Foundation

/// Counts work the SDK has accepted and not finished (queued events, requests, retries), so
/// tests and diagnostics can tell when the SDK is idle.
final class WorkTracker: Sendable {
    private let count = PNLocked(0)

    func begin() { count.withLock { $0 += 1 } }
    func end() { count.withLock { $0 -= 1 } }
    var pending: Int { count.current }
}
