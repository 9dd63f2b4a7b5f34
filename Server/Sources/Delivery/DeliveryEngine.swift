#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport
import Synchronization

/// Workers that drain the durable outbox: claim due jobs in batches (calls first), send
/// them concurrently through a `PushSender`, and record each outcome in the store.
///
/// Two workers (``BackgroundWorker``) talk to the store, one claiming and one finishing, so
/// neither waits on the network; they share one lock, under which the engine keeps its counters.
/// Sends run as tasks, at most `maxInFlight` at a time, of which one provider (of one app) holds
/// at most `maxInFlightPerProvider`: a claim leaves out the providers at their share, so a
/// provider that is slow or hangs cannot take the slots other apps' pushes need. A job claimed
/// by a process that dies is claimed again when its lease runs out, so nothing is lost. Time
/// comes from the injected clock.
public final class DeliveryEngine: Sendable {
    /// Tuning knobs.
    public struct Configuration: Sendable {
        /// Most jobs claimed at once.
        public var batchSize: Int
        /// Most sends in flight.
        public var maxInFlight: Int
        /// Most sends in flight for one provider of one app (default seven eighths of
        /// `maxInFlight`: an eighth is always left to the others).
        public var maxInFlightPerProvider: Int?
        /// How long a claim is leased (longer than the longest send).
        public var lease: TimeInterval
        /// How long the claiming worker idles when the outbox has nothing due: the fallback poll.
        /// Added jobs wake it (`wake()`), and it wakes when a retry it recorded falls due.
        public var idleWait: TimeInterval
        /// How long a call rings: a call push not sent within this time of its `sentAt` is
        /// recorded expired instead of ringing a device late.
        public var ringTimeout: TimeInterval = 45

        /// Creates a configuration.
        public init(batchSize: Int = 500, maxInFlight: Int = 1400, lease: TimeInterval = 60, idleWait: TimeInterval = 0.2) {
            self.batchSize = batchSize
            self.maxInFlight = maxInFlight
            self.lease = lease
            self.idleWait = idleWait
        }
    }

    struct Finished {
        let job: PushJob
        let outcome: JobOutcome
        let answeredAt: Date
    }

    /// `@unchecked Sendable`: every field is guarded by the workers' lock.
    final class Shared: @unchecked Sendable {
        /// Claimed and not yet recorded in the store.
        var inFlight = 0
        /// Claimed and not yet answered: what `maxInFlight` bounds (each holds a network stream).
        var sending = 0
        /// `sending` per provider: what `maxInFlightPerProvider` bounds.
        var sendingBy: [ProviderRef: Int] = [:]
        var finished: [Finished] = []
        /// When the retries recorded fall due.
        var retries = RetryTimes()
        /// Until when the claimer idles (nil during a pass): a retry due sooner wakes it.
        var claimerIdleUntil: Date?
        /// The last claim that left providers out and found nothing: until `until`, a new
        /// send (``DeliveryEngine/wake()``) or a retry falling due, a claim leaving out at
        /// least these providers would find nothing either, so none is made. Without it, while
        /// one provider holds its share (one busy app), every answered chunk was followed by a
        /// claim that read that provider's whole backlog to find nothing.
        var fruitless: (excluded: Set<ProviderRef>, until: Date)?
        /// How many times ``DeliveryEngine/wake()`` was called: a claim that found nothing is
        /// remembered only if no send came while it read (its result may predate that send).
        var wakes = 0
    }

    /// When the retries the engine recorded fall due, so that the claimer idles until the first
    /// of them rather than a whole poll: rounded up to 10 ms (one entry however many jobs fall
    /// due then, never before their `notBefore`), the earliest ``limit`` of them (later ones are
    /// the poll's).
    struct RetryTimes {
        static let granularity: TimeInterval = 0.01
        static let limit = 256
        /// Ascending, without duplicates.
        private(set) var times: [Date] = []

        mutating func insert(_ date: Date) {
            let rounded = Date(
                timeIntervalSince1970: (date.timeIntervalSince1970 / Self.granularity).rounded(.up) * Self.granularity)
            var low = 0
            var high = times.count
            while low < high {
                let middle = (low + high) / 2
                if times[middle] < rounded { low = middle + 1 } else { high = middle }
            }
            guard low < Self.limit, low == times.count || times[low] != rounded else { return }
            times.insert(rounded, at: low)
            if times.count > Self.limit { times.removeLast() }
        }

        /// Forgets the times that passed (their jobs are due: the next claim takes them).
        mutating func forget(upTo now: Date) {
            times.removeFirst(times.prefix { $0 <= now }.count)
        }

        /// Forgets the times that passed; the first one still ahead.
        mutating func next(after now: Date) -> Date? {
            forget(upTo: now)
            return times.first
        }
    }

    private let store: any OutboxStore
    private let sender: any PushSender
    private let configuration: Configuration
    /// The engine's metrics.
    public let metrics: DeliveryMetrics
    private let logger: Logger
    private let clock: any ServiceClock
    /// Claims due jobs and starts their sends.
    private let claimer: BackgroundWorker
    /// Records the outcomes of answered sends.
    private let finisher: BackgroundWorker
    /// The workers' lock: it guards `shared`.
    private var lock: ConditionLock { claimer.lock }
    private let shared = Shared()
    private let trimmer = HeapTrimmer()
    /// Touched by the finishing thread only: what it already recorded as delivered.
    private let recorded = Locked(RecordedDeliveries())

    /// The tokens known to have delivered (bounded: when full it starts again, and a token is
    /// at worst recorded twice) and when each provider's last delivery was written.
    struct RecordedDeliveries {
        static let tokenLimit = 200_000
        var tokens: Set<TokenRef> = []
        var providers: [ProviderRef: Date] = [:]

        /// What of `delivered` is not recorded yet: new tokens, providers last written over a
        /// minute ago. Marks them as recorded.
        mutating func due(_ delivered: [PushJob], at time: Date) -> (tokens: [TokenRef], providers: [ProviderRef]) {
            var newTokens: [TokenRef] = []
            var dueProviders: [ProviderRef] = []
            for job in delivered {
                let token = TokenRef(appId: job.appId, token: job.token)
                if !tokens.contains(token) {
                    if tokens.count >= Self.tokenLimit { tokens.removeAll(keepingCapacity: true) }
                    tokens.insert(token)
                    newTokens.append(token)
                }
                let provider = ProviderRef(appId: job.appId, providerId: job.providerId)
                if providers[provider].map({ time.timeIntervalSince($0) >= 60 }) ?? true {
                    providers[provider] = time
                    dueProviders.append(provider)
                }
            }
            return (newTokens, dueProviders)
        }
    }

    /// Creates an engine logging through `logger`; call `start()` to run it. `clock` is where its
    /// time comes from (the leases, the answers' times, its idle waits).
    public init(
        store: any OutboxStore, sender: any PushSender, configuration: Configuration = Configuration(),
        metrics: DeliveryMetrics = DeliveryMetrics(), logger: Logger, clock: any ServiceClock = SystemClock()
    ) {
        self.store = store
        self.sender = sender
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
        claimer = BackgroundWorker(name: "delivery-claim", idle: configuration.idleWait, clock: clock)
        finisher = BackgroundWorker(name: "delivery-finish", idle: configuration.idleWait, clock: clock, lock: claimer.lock)
    }

    /// Starts the claiming and finishing workers, after taking over the leases of jobs that
    /// a process which no longer runs (this service's predecessor) held: they are sent again
    /// at once instead of after their lease.
    public func start() {
        do {
            let released = try store.releaseAbandonedLeases(now: clock.now)
            if released > 0 { logger.warning("delivery: took over \(released) jobs in flight of a process that no longer runs") }
        } catch {
            logger.error("delivery: releasing abandoned leases failed: \(error)")
        }
        claimer.start { [self] in claimPass() }
        finisher.start { [self] in finishPass() }
    }

    /// Tells the engine new jobs may be due (after a send was accepted).
    public func wake() {
        lock.withLock {
            shared.fruitless = nil
            shared.wakes &+= 1
            claimer.wakeInsideLock()
        }
    }

    /// Stops claiming, waits up to `timeout` seconds for sends in flight to be recorded, then
    /// stops recording.
    public func stop(timeout: TimeInterval = 20) {
        let deadline = clock.now.addingTimeInterval(timeout)
        claimer.stop(timeout: timeout)
        lock.withLock {
            while shared.inFlight > 0, clock.wait(on: lock, until: deadline) {}
        }
        finisher.stop(timeout: max(0, deadline.timeIntervalSince(clock.now)))
    }

    /// Jobs claimed and not yet recorded.
    public var inFlight: Int { lock.withLock { shared.inFlight } }

    /// One provider's share of the sends in flight.
    private var perProvider: Int {
        max(
            1,
            min(
                configuration.maxInFlightPerProvider ?? configuration.maxInFlight - configuration.maxInFlight / 8, configuration.maxInFlight
            ))
    }

    /// What a claim fills at least: a sixteenth of `maxInFlight` (at most `batchSize`).
    private var chunk: Int { max(1, min(configuration.batchSize, configuration.maxInFlight / 16)) }

    /// Claiming waits until no more than this many sends are unanswered, so each claim
    /// fills at least a ``chunk`` at once.
    private var claimAt: Int { configuration.maxInFlight - chunk }

    /// A provider with more sends than this in flight is left out of claims until it is back
    /// to it: like the engine as a whole, it takes a whole ``chunk`` or nothing (one claim per
    /// answered send would make the store the bottleneck).
    private var providerClaimAt: Int { max(0, perProvider - chunk) }

    /// One pass of the claiming worker: waits for free slots, claims, starts the sends.
    private func claimPass() -> BackgroundWorker.Next {
        // Claim when enough sends have been answered; answered jobs waiting to be recorded
        // do not hold a slot (recording is one transaction per batch, behind the network),
        // but at most four times `maxInFlight` may wait, so a slow store slows claiming.
        let perProvider = self.perProvider
        let providerClaimAt = self.providerClaimAt
        enum Pass {
            case claim(free: Int, excluded: Set<ProviderRef>, busiest: Int, wakes: Int)
            case idle(until: Date)
            case end
        }
        let pass: Pass = lock.withLock {
            shared.claimerIdleUntil = nil
            let goesOn = claimer.waitWhile {
                shared.sending > claimAt || shared.inFlight >= configuration.maxInFlight * 4
            }
            guard goesOn else { return .end }
            let excluded = Set(shared.sendingBy.filter { $0.value > providerClaimAt }.keys)
            if let fruitless = shared.fruitless, !excluded.isEmpty, excluded.isSuperset(of: fruitless.excluded),
                clock.now < fruitless.until
            {
                // Nothing but the left-out providers' jobs was due: wait as after that claim.
                shared.claimerIdleUntil = fruitless.until
                return .idle(until: fruitless.until)
            }
            let busiest = shared.sendingBy.values.filter { $0 <= providerClaimAt }.max() ?? 0
            return .claim(
                free: configuration.maxInFlight - shared.sending, excluded: excluded, busiest: busiest, wakes: shared.wakes)
        }
        let slots: (free: Int, excluded: Set<ProviderRef>, busiest: Int, wakes: Int)
        switch pass {
        case .end: return .end
        case .idle(let until): return .idleUntil(until)
        case .claim(let free, let excluded, let busiest, let wakes): slots = (free, excluded, busiest, wakes)
        }
        // A claim may go to one provider only: at most what keeps every provider within its share.
        let limit = min(slots.free, configuration.batchSize, perProvider - slots.busiest)
        let jobs: [PushJob]
        do {
            jobs = try store.claimPushJobs(limit: limit, lease: configuration.lease, now: clock.now, excluding: slots.excluded)
        } catch {
            logger.error("delivery: claiming jobs failed: \(error)")
            return .idleFor(1)
        }
        if jobs.isEmpty {
            // With providers left out, wait for one of their sends to end (or new jobs)
            // rather than read the queue every few milliseconds past their backlog. Either way
            // no longer than until a retry falls due.
            let now = clock.now
            var until = now.addingTimeInterval(slots.excluded.isEmpty ? configuration.idleWait : 1)
            return .idleUntil(
                lock.withLock {
                    if let retry = shared.retries.next(after: now), retry < until { until = retry }
                    shared.claimerIdleUntil = until
                    if !slots.excluded.isEmpty, shared.wakes == slots.wakes { shared.fruitless = (slots.excluded, until) }
                    return until
                })
        }
        lock.withLock {
            shared.inFlight += jobs.count
            shared.sending += jobs.count
            for job in jobs { shared.sendingBy[ProviderRef(appId: job.appId, providerId: job.providerId), default: 0] += 1 }
        }
        sender.prepare(jobs)
        // Calls jump the queue: start them before the rest of the batch.
        for job in jobs where job.kind == .call { dispatch(job) }
        for job in jobs where job.kind != .call { dispatch(job) }
        return .again
    }

    /// Why the job must not be sent any more, or nil while its moment lasts: an alert past
    /// its `apns-expiration`, a call push past its ring deadline (`sentAt` + `ringTimeout`).
    static func expiry(of job: PushJob, now: Date, ringTimeout: TimeInterval) -> String? {
        if job.headers.expiration > 0, now.timeIntervalSince1970 > Double(job.headers.expiration) {
            return "Expired (apns-expiration passed before it could be sent)"
        }
        if job.kind == .call {
            let sentAt = callSentAt(job.payload) ?? job.createdAt
            if now.timeIntervalSince(sentAt) > ringTimeout {
                return "Expired (the call stopped ringing before it could be sent)"
            }
        }
        return nil
    }

    /// The call's `sentAt` (milliseconds, a string or a number at the payload's top level).
    static func callSentAt(_ payload: Data) -> Date? {
        guard let object = try? JSONCodec.parse(payload) as? [String: Any] else { return nil }
        let milliseconds: Double?
        switch object["sentAt"] {
        case let text as String: milliseconds = Double(text)
        case let number as Int: milliseconds = Double(number)
        case let number as Int64: milliseconds = Double(number)
        case let number as Double: milliseconds = number
        default: milliseconds = nil
        }
        return milliseconds.map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    private func dispatch(_ job: PushJob) {
        let shared = self.shared
        let claimer = self.claimer
        let clock = self.clock
        let claimAt = self.claimAt
        let providerClaimAt = self.providerClaimAt
        let provider = ProviderRef(appId: job.appId, providerId: job.providerId)
        let sender: any PushSender =
            Self.expiry(of: job, now: clock.now, ringTimeout: configuration.ringTimeout).map { ExpiredAnswer(reason: $0) } ?? self.sender
        sender.send(job) { outcome in
            let answeredAt = clock.now
            claimer.lock.withLock {
                shared.sending -= 1
                let held = shared.sendingBy[provider] ?? 1
                shared.sendingBy[provider] = held > 1 ? held - 1 : nil
                if held == providerClaimAt + 1 {
                    // The provider's share has room for a chunk again: claims may include it.
                    claimer.wakeInsideLock()
                }
                shared.finished.append(Finished(job: job, outcome: outcome, answeredAt: answeredAt))
                // Wake the workers only when they have something to do: the finisher when its
                // list stops being empty, the claimer when enough sends were answered.
                if shared.finished.count == 1 || shared.sending == claimAt {
                    claimer.lock.broadcast()
                }
            }
        }
    }

    /// One pass of the finishing worker: waits for answered sends, records their outcomes.
    /// Stopping, it records what was answered and ends.
    private func finishPass() -> BackgroundWorker.Next {
        let batch: [Finished] = lock.withLock {
            _ = finisher.waitWhile { shared.finished.isEmpty }
            defer { shared.finished.removeAll(keepingCapacity: true) }
            return shared.finished
        }
        if batch.isEmpty { return .end }
        record(batch)
        return .again
    }

    private func record(_ batch: [Finished]) {
        let time = clock.now
        for item in batch {
            let latency = item.answeredAt.timeIntervalSince(item.job.createdAt)
            metrics.record(item.outcome, provider: item.job.platform.isAPNs ? "apns" : "fcm", latency: latency)
            if item.outcome == .delivered { metrics.recordFunnel(app: item.job.appId, stage: "sent") }
        }
        do {
            try store.finishPushJobs(batch.map { ($0.job.id, $0.outcome) }, now: time)
            // What the breakers keep across restarts: only what is new (almost never, once
            // the tokens delivered), so a batch costs no more statements than before.
            let due = recorded.withLock { $0.due(batch.filter { $0.outcome == .delivered }.map(\.job), at: time) }
            do {
                try store.recordDeliveries(tokens: due.tokens, providers: due.providers, at: time)
            } catch {
                // Only the breakers' memory, and tried again: what this batch delivered
                // is recorded with the next one that delivers.
                recorded.withLock { $0 = RecordedDeliveries() }
                logger.error("delivery: recording what delivered failed: \(error)")
            }
        } catch {
            // Their leases run out and the jobs are claimed again: at least once.
            logger.error("delivery: recording \(batch.count) outcomes failed: \(error)")
        }
        let retries = batch.compactMap { item -> Date? in
            if case .retry(let notBefore, _) = item.outcome { return notBefore }
            return nil
        }
        lock.withLock {
            shared.inFlight -= batch.count
            if !retries.isEmpty {
                // Times that passed make room first: while the claimer is busy nothing else
                // clears them.
                shared.retries.forget(upTo: time)
                for retry in retries { shared.retries.insert(retry) }
                // A retry falling due may be another provider's job: claim for it then.
                if let fruitless = shared.fruitless, let first = shared.retries.times.first, first < fruitless.until {
                    shared.fruitless?.until = first
                }
                // An idle claimer waits for the first retry instead of its whole poll.
                if let idle = shared.claimerIdleUntil, let first = shared.retries.times.first, first < idle {
                    claimer.wakeInsideLock()
                }
            }
            lock.broadcast()
        }
        // The answered requests' memory is free now: hand it back while busy.
        trimmer.trimIfDue()
    }
}

/// Answers a job whose moment passed with `expired`, without sending it.
private struct ExpiredAnswer: PushSender {
    let reason: String
    func send(_ job: PushJob) async -> JobOutcome { .expired(reason: reason) }
    func send(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) { completion(.expired(reason: reason)) }
}
