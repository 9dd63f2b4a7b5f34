import Foundation

/// How a wait that follows the work (``waitWhileProgressing(stall:limit:_:until:)``) ended.
public struct ProgressWait<Value: Sendable>: Sendable {
    /// The last value read.
    public let value: Value
    /// Whether the condition held.
    public let done: Bool
    /// The real time the wait took, in seconds.
    public let elapsed: TimeInterval
    /// Why it ended without the condition: no change for the stall window, or the outer limit.
    public let reason: String?
}

/// Reads `read` every 20 ms until `done` holds for its value, without holding a thread of Swift's
/// cooperative pool while it sleeps.
///
/// It gives up only when the value has not changed for `stall` seconds of real time (the work
/// stopped), so a slow or loaded machine that is still delivering never fails it; `limit` bounds
/// the whole wait so that a test always ends. When it gives up it prints how far the work got
/// (`label` and the last value), and the caller's expectations then fail on that value.
public func waitWhileProgressing<Value: Equatable & Sendable>(
    _ label: String = "wait", stall: TimeInterval = 60, limit: TimeInterval = 600,
    _ read: () throws -> Value, until done: (Value) -> Bool
) async rethrows -> ProgressWait<Value> {
    let start = Date()
    var value = try read()
    var changed = start
    while true {
        let now = Date()
        if done(value) { return ProgressWait(value: value, done: true, elapsed: now.timeIntervalSince(start), reason: nil) }
        let reason: String?
        if now.timeIntervalSince(changed) >= stall {
            reason = "no progress for \(stall) s"
        } else if now.timeIntervalSince(start) >= limit {
            reason = "still progressing after \(limit) s, the wait's limit"
        } else {
            reason = nil
        }
        if let reason {
            let elapsed = now.timeIntervalSince(start)
            print("\(label): gave up after \(String(format: "%.1f", elapsed)) s (\(reason)); last: \(value)")
            return ProgressWait(value: value, done: false, elapsed: elapsed, reason: reason)
        }
        try? await Task.sleep(for: .milliseconds(20))
        let next = try read()
        if next != value {
            value = next
            changed = Date()
        }
    }
}
