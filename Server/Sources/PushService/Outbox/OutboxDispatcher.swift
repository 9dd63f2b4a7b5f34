#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// A simple consumer of the push outbox for part 1: claims due jobs, hands them to a
/// ``PushSender`` (a stand-in until part 2's delivery engine) and records the outcome.
/// Part 2 replaces it with the delivery engine, which uses the same ``OutboxStore`` API.
final class OutboxDispatcher: Sendable {
    private let store: any OutboxStore
    private let sender: any PushSender
    private let pollInterval: Double
    private let lease: Double
    private let logger: ServiceLogger
    private let running = Locked(true)

    init(store: any OutboxStore, sender: any PushSender, pollInterval: Double, lease: Double, logger: ServiceLogger) {
        self.lease = lease
        self.store = store
        self.sender = sender
        self.pollInterval = pollInterval
        self.logger = logger
    }

    func stop() {
        running.withLock { $0 = false }
    }

    /// Runs until ``stop()``.
    func run() async {
        while running.withLock({ $0 }) {
            let jobs: [PushJob]
            do {
                jobs = try store.claimPushJobs(limit: 64, lease: lease, now: Date())
            } catch {
                logger.error("outbox claim failed: \(error)")
                jobs = []
            }
            if jobs.isEmpty {
                try? await Task.sleep(nanoseconds: UInt64(pollInterval * 1e9))
                continue
            }
            await withTaskGroup(of: Void.self) { group in
                for job in jobs {
                    group.addTask {
                        let outcome = await self.sender.send(job)
                        do {
                            try self.store.finishPushJob(id: job.id, outcome: outcome, now: Date())
                        } catch {
                            self.logger.error("outbox finish failed for job \(job.id); it will be claimed again")
                        }
                    }
                }
            }
        }
    }
}
