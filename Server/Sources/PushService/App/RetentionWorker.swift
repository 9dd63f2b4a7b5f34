#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore
import ServerSupport

/// Deletes finished work older than `--retention-days` in the background: once shortly after
/// start (after the interval, at most a minute), then every `--retention-interval` seconds.
///
/// It runs on a thread of its own and deletes in batches
/// (``ServiceStore/purgeFinished(before:batchSize:)``), so requests and deliveries go on
/// between batches. A run that deleted something logs one line of counts; a failed run is
/// logged and tried again at the next interval. With `--retention-days 0` it never starts.
final class RetentionWorker: Sendable {
    /// Rows per delete statement.
    static let batchSize = 5_000

    private let service: ServiceContext
    private let running = Locked(true)
    private let pause = ConditionLock()

    init(service: ServiceContext) {
        self.service = service
    }

    /// Starts the worker's thread, unless retention is off.
    func start() {
        let days = service.configuration.retentionDays
        guard days > 0 else {
            service.logger.info("retention off (--retention-days 0): finished jobs, trace events and idempotency keys are kept")
            return
        }
        ServerThread.start(name: "push-retention") { [self] in run() }
    }

    /// Ends the worker (a purge under way ends after its current batch's store call).
    func stop() {
        running.withLock { $0 = false }
        pause.withLock { pause.broadcast() }
    }

    private func run() {
        let interval = service.configuration.retentionIntervalSeconds
        var next = Date().addingTimeInterval(min(interval, 60))
        while true {
            pause.withLock {
                while running.withLock({ $0 }), Date() < next { pause.wait(until: next) }
            }
            guard running.withLock({ $0 }) else { return }
            purgeOnce()
            next = Date().addingTimeInterval(interval)
        }
    }

    /// One purge with the cutoff `--retention-days` before now.
    func purgeOnce() {
        let days = service.configuration.retentionDays
        let cutoff = Date().addingTimeInterval(-Double(days) * 86_400)
        do {
            let counts = try service.store.purgeFinished(before: cutoff, batchSize: Self.batchSize)
            service.retentionDeleted.withLock { $0 += counts }
            if counts.total > 0 {
                service.logger.info("retention: deleted what finished more than \(days) days ago: \(counts)")
            }
        } catch {
            service.logger.error(
                "retention purge failed (tried again in \(Int(service.configuration.retentionIntervalSeconds)) s): \(error)")
        }
    }

    /// The `push_retention_deleted_total` counter for `/metrics`.
    static func prometheusText(_ counts: RetentionCounts) -> String {
        var text = "# HELP push_retention_deleted_total Rows the retention purge deleted (--retention-days), by kind.\n"
        text += "# TYPE push_retention_deleted_total counter\n"
        for (kind, count) in counts.byKind {
            text += "push_retention_deleted_total{kind=\"\(kind)\"} \(count)\n"
        }
        return text
    }
}
