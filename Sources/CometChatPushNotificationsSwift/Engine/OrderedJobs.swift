import Foundation

/// Runs jobs one after another in the order they were submitted, from any thread. Public calls
/// submit here so that, for example, a token handed over just before `initialize` is seen
/// before it.
final class OrderedJobs: Sendable {
    private let continuation: AsyncStream<@Sendable () async -> Void>.Continuation
    private let tracker: WorkTracker

    init(tracker: WorkTracker) {
        self.tracker = tracker
        let (stream, continuation) = AsyncStream<@Sendable () async -> Void>.makeStream()
        self.continuation = continuation
        Task.detached {
            for await job in stream {
                await job()
                tracker.end()
            }
        }
    }

    deinit { continuation.finish() }

    /// Queues `job`.
    func submit(_ job: @escaping @Sendable () async -> Void) {
        tracker.begin()
        continuation.yield(job)
    }
}
