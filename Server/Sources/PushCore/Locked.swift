import Foundation

/// A value guarded by an `NSLock`; the portable `Mutex` of this package.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`.
    private let lock = NSLock()
    private var value: Value

    /// Creates the box.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
