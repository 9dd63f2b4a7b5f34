import Foundation

/// Runs blocking work (starting a process and reading its first line, opening a store with
/// its migrations and connections) on a thread of its own and waits for it without holding
/// a thread of Swift's cooperative pool.
///
/// The pool has one thread per core. When every suite starts at once on a two-core machine,
/// tests that start a service or a mock synchronously held both threads for up to a minute
/// (sampled with gdb: `Harness.init` waiting on PostgreSQL), and everything else that runs on
/// the pool, the FCM sender's requests included, waited behind them until its tests timed out.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
