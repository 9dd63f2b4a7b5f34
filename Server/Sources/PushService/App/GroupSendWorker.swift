#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore
import ServerSupport

/// Makes the jobs of sends to groups too large to expand while their request waits (issue 31,
/// docs/design/group-sends.md), in the background, `--group-batch` members at a time.
///
/// It is a ``BackgroundWorker`` on the service's worker clock. It leases the oldest group send
/// still expanding that no live store holds (``GroupSendStore/claimGroupSend(lease:now:)``,
/// `--job-lease` seconds, renewed by each batch) and keeps it until it is done; each pass reads
/// the next members after its cursor and what their jobs need, and stores the batch in one
/// transaction with its badges and the cursor
/// (``GroupSendStore/commitGroupSendBatch(_:lease:now:build:)``): a crash loses at most the
/// batch under way, which the next run makes again, and no batch is stored twice. With nothing
/// to expand it looks again after a second (``idle(_:)``); an accepted group send wakes it at
/// once, and its first pass at start takes over what a process that no longer runs left. A
/// failed batch is tried again on the service's one back-off (``RetryPolicy``: 1 s doubling to
/// a minute).
final class GroupSendWorker: Sendable {
    /// The back-off after a failed batch.
    static let retry = RetryPolicy(maxAttempts: .max, baseDelay: 1, maxDelay: 60)

    /// How long the worker idles with nothing to expand: `--poll-interval`, at least a second.
    /// An accepted send wakes its own instance's worker at once, so the look only finds sends
    /// whose holder died (another instance's, or one a crash left before its first batch).
    static func idle(_ configuration: ServiceConfiguration) -> TimeInterval {
        max(configuration.pollInterval, 1)
    }

    private let service: ServiceContext
    private let worker: BackgroundWorker
    /// Batches failed in a row (the back-off's attempt).
    private let failures = Locked(0)
    /// The send this worker holds, as its last batch left it: the next pass goes on with it
    /// without claiming it again (each batch renews the lease). Nil: claim one.
    private let holding = Locked<GroupSend?>(nil)

    init(service: ServiceContext) {
        self.service = service
        worker = BackgroundWorker(name: "push-groups", idle: Self.idle(service.configuration), clock: service.workerClock)
    }

    /// Starts the worker: its first pass takes over at once what a process that no longer runs left.
    func start() {
        worker.start { [self] in pass() }
    }

    /// Ends the idle wait: a group send was accepted.
    func wake() {
        worker.wake()
    }

    /// Ends the worker; waits up to `timeout` seconds for the batch under way.
    func stop(timeout: TimeInterval = 10) {
        worker.stop(timeout: timeout)
    }

    /// One batch of the oldest group send this store may expand.
    private func pass() -> BackgroundWorker.Next {
        do {
            let lease = service.configuration.jobLeaseSeconds
            guard let send = try holding.withLock({ $0 }) ?? service.store.claimGroupSend(lease: lease, now: worker.clock.now) else {
                failures.withLock { $0 = 0 }
                return .idle
            }
            let next = try expand(send, lease: lease)
            holding.withLock { $0 = next }
            failures.withLock { $0 = 0 }
            return .again
        } catch {
            // Claimed again after the back-off, as the store has it then.
            holding.withLock { $0 = nil }
            let attempt = failures.withLock { count -> Int in
                count += 1
                return count
            }
            let delay = Self.retry.delay(attempt: attempt)
            service.logger.error("group send: a batch failed (tried again in \(Int(delay.rounded(.up))) s): \(error)")
            return .idleFor(delay)
        }
    }

    /// Makes and stores the jobs of the send's next batch of members; returns the send as the
    /// batch left it while members are left and this store still holds it, else nil.
    private func expand(_ send: GroupSend, lease: TimeInterval) throws -> GroupSend? {
        let request: SendRequest
        let group: SendRequest.GroupTarget
        do {
            // As it was accepted: `sentAt` defaults to the acceptance's time in every batch.
            request = try SendRequest.parse(JSON.object(from: send.request), now: send.createdAt)
            guard let target = request.group else { throw APIError.badRequest("not a group send", field: "recipients") }
            group = target
        } catch {
            // Read as it was accepted, it cannot fail; a later version's request might.
            try service.store.failGroupSend(id: send.id, reason: "its request cannot be read: \(error)", now: service.now)
            service.logger.error("group send failed app=\(send.appId) request=\(send.id): its request cannot be read (\(error))")
            return nil
        }
        let uids = try service.store.groupSendMembers(id: send.id, after: send.cursor, limit: service.configuration.groupBatchSize)
        let app = try service.store.app(id: send.appId)
        let badges = ServiceBadge(service: service, appId: send.appId, appDefault: app?.badge ?? .caller)
            .plan(request.event, recipients: uids.map(group.recipient))
        let now = service.now
        let facts = try RecipientFacts.read(
            service.store, appId: send.appId, uids: uids, holdSeconds: app?.holdWhileActiveSeconds ?? 0, now: now)
        let factory = JobFactory(
            service: service, requestId: send.id, ttlSeconds: request.ttlSeconds, privateMode: PrivateMode(app: app, ids: service.pushIds),
            deliveryPolicy: app?.deliveryPolicy ?? .standard, localization: app?.localization ?? .standard, acceptedAt: send.createdAt)
        let batch = GroupSendBatch(
            id: send.id, appId: send.appId, after: send.cursor, uids: uids, unread: badges.messages, totalsOf: badges.totalsOf)
        // Jobs whose badges need the counts are made inside the batch's transaction (their
        // totals are read there); the others before it, so that the store (SQLite's one
        // connection) is not held while they are built.
        let before =
            badges.counts
            ? nil
            : try factory.jobs(for: request.event, recipients: uids.map(group.recipient), facts: facts, now: now, checkingSize: false)
        var made = before
        let stored = try service.store.commitGroupSendBatch(batch, lease: lease, now: worker.clock.now) { totals in
            if let before { return before.jobs }
            // Made again if the transaction is tried again: the last one made is the one stored.
            let inside = try factory.jobs(for: request.event, recipients: badges.apply(totals), facts: facts, now: now, checkingSize: false)
            made = inside
            return inside.jobs
        }
        guard stored else {
            service.logger.warning("group send: request=\(send.id) was taken over by another instance; its batch was not stored")
            return nil
        }
        // Members reading the group elsewhere (issue 31): their held pushes, for a read to cancel.
        try ActivityHold.record(made?.held ?? [], store: service.store, appId: send.appId, seconds: facts.holdSeconds, now: now)
        var next = send
        next.cursor = uids.last ?? send.cursor
        next.done += uids.count
        service.logger.debug("group send batch app=\(send.appId) request=\(send.id) members=\(next.done)/\(send.members)")
        guard next.done < send.members, !uids.isEmpty else {
            service.logger.info(
                "group send expanded app=\(send.appId) request=\(send.id) group=\(send.guid) members=\(send.members) "
                    + "in \(Int(now.timeIntervalSince(send.createdAt) * 1000))ms")
            return nil
        }
        return next
    }
}
