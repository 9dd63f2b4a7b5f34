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
/// It is a ``BackgroundWorker`` on the service's worker clock (one purge per pass, then idle for
/// the interval) and deletes in batches (``ServiceStore/purgeFinished(before:batchSize:)``), so
/// requests and deliveries go on between batches. A run that deleted something logs one line of
/// counts; a failed run is logged and tried again at the next interval. With
/// `--retention-days 0` it never starts.
final class RetentionWorker: Sendable {
    /// Rows per delete statement.
    static let batchSize = 5_000

    private let service: ServiceContext
    private let worker: BackgroundWorker

    init(service: ServiceContext) {
        self.service = service
        worker = BackgroundWorker(
            name: "push-retention", idle: service.configuration.retentionIntervalSeconds, clock: service.workerClock)
    }

    /// Starts the worker, unless retention is off: the first purge comes after the interval, at
    /// most a minute, then one every interval.
    func start() {
        let days = service.configuration.retentionDays
        guard days > 0 else {
            service.logger.info("retention off (--retention-days 0): finished jobs, trace events and idempotency keys are kept")
            return
        }
        worker.start(after: min(service.configuration.retentionIntervalSeconds, 60)) { [self] in
            purgeOnce()
            return .idle
        }
    }

    /// Ends the worker; waits up to `timeout` seconds for a purge under way to end.
    func stop(timeout: TimeInterval = 10) {
        worker.stop(timeout: timeout)
    }

    /// One purge with the cutoff `--retention-days` before now.
    func purgeOnce() {
        let days = service.configuration.retentionDays
        let cutoff = worker.clock.now.addingTimeInterval(-Double(days) * 86_400)
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
