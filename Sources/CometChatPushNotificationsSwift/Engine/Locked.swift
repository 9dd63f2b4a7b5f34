import Foundation

/// A value behind an `NSLock`: portable (iOS 15, Linux), unlike `OSAllocatedUnfairLock` or
/// `Synchronization.Mutex`. Used by the SDK's products and its simulated platform.
@_spi(PNProducts)
public final class PNLocked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value.
    public var current: Value { withLock { $0 } }
}
