#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The durable outbox of push jobs, as seen by the delivery engine.
///
/// Delivery is at least once: a job claimed by a process that dies before it finishes the
/// job becomes claimable again when its lease runs out. Calls may block (they touch the
/// database); call them off latency-sensitive threads. Implementations: `SQLiteStore` and
/// `PostgresStore` (PushStore; PostgreSQL claims with `FOR UPDATE SKIP LOCKED`, so several
/// instances can share one outbox).
public protocol OutboxStore: Sendable {
    /// Claims up to `limit` jobs that are due (`notBefore <= now`), oldest first, and leases
    /// them for `lease` seconds: no other claim returns them until the lease runs out or the
    /// job is finished. Each returned job has `attempts` already incremented.
    ///
    /// The jobs of the `excluded` providers are left out (they stay due, their attempts
    /// untouched): the engine leaves out a provider that holds its share of the sends in
    /// flight, so one slow provider cannot take every slot.
    func claimPushJobs(limit: Int, lease: TimeInterval, now: Date, excluding excluded: Set<ProviderRef>) throws -> [PushJob]

    /// Records the outcome of a claimed job: `delivered` and `failed` end it, `retry`
    /// makes it claimable again at its `notBefore`, `tokenInvalid` ends it and deletes the
    /// token (for its app) so later sends skip it.
    func finishPushJob(id: String, outcome: JobOutcome, now: Date) throws

    /// Records what delivered, for the providers' circuit breakers: each token's first delivery
    /// (a token that already has one keeps it) and the providers' last. The engine calls it
    /// after recording outcomes, for tokens it has not seen deliver yet and providers it did
    /// not record in the last minute; ``tokenHasDelivered(appId:token:)`` and
    /// ``providerLastDelivered(appId:providerId:)`` read it back.
    func recordDeliveries(tokens: [TokenRef], providers: [ProviderRef], at time: Date) throws

    /// Whether a push to this token was ever delivered (accepted by APNs or FCM).
    func tokenHasDelivered(appId: String, token: String) throws -> Bool

    /// When the provider last delivered a push (within a minute), nil when it never did since
    /// it was created or last updated.
    func providerLastDelivered(appId: String, providerId: String) throws -> Date?

    /// Counts jobs by state, for health checks and tests.
    func pushJobCounts() throws -> OutboxCounts

    /// Counts only the jobs still to do (pending and in flight; the other counts are 0):
    /// what `/healthz` and `/metrics` show. Stores answer it from an index without reading
    /// the finished jobs, however many there are.
    func activePushJobCounts() throws -> OutboxCounts

    /// Records the outcomes of many claimed jobs at once (one transaction where the store
    /// can), with the same meaning as ``finishPushJob(id:outcome:now:)`` for each.
    func finishPushJobs(_ results: [(id: String, outcome: JobOutcome)], now: Date) throws

    /// Makes jobs leased by processes that no longer run claimable at once; returns how many.
    /// The engine calls it when it starts, so a restarted service resends its predecessor's
    /// jobs in flight without waiting for their leases to run out.
    func releaseAbandonedLeases(now: Date) throws -> Int

    /// Makes the jobs of a provider that wait for it to be fixed due now; returns how many.
    func releaseWaitingJobs(appId: String, providerId: String, now: Date) throws -> Int

    /// Stores the APNs environment a send found a token to work in.
    func recordTokenEnvironment(appId: String, token: String, environment: TokenEnvironment) throws
}

/// One push token of one app.
public struct TokenRef: Hashable, Sendable {
    /// The app.
    public var appId: String
    /// The token.
    public var token: String

    /// Creates a reference.
    public init(appId: String, token: String) {
        self.appId = appId
        self.token = token
    }
}

/// One provider of one app.
public struct ProviderRef: Hashable, Sendable {
    /// The app.
    public var appId: String
    /// The provider's id within the app.
    public var providerId: String

    /// Creates a reference.
    public init(appId: String, providerId: String) {
        self.appId = appId
        self.providerId = providerId
    }
}

extension OutboxStore {
    /// Claims due jobs of every provider.
    public func claimPushJobs(limit: Int, lease: TimeInterval, now: Date) throws -> [PushJob] {
        try claimPushJobs(limit: limit, lease: lease, now: now, excluding: [])
    }

    /// Default: nothing is kept.
    public func recordDeliveries(tokens: [TokenRef], providers: [ProviderRef], at time: Date) throws {}

    /// Default: no token is known to have delivered.
    public func tokenHasDelivered(appId: String, token: String) throws -> Bool { false }

    /// Default: no delivery is kept (a provider is known once it delivers in this process).
    public func providerLastDelivered(appId: String, providerId: String) throws -> Date? { nil }

    /// Default: ``pushJobCounts()``.
    public func activePushJobCounts() throws -> OutboxCounts { try pushJobCounts() }

    /// Default: nothing is released (leases expire on their own).
    public func releaseAbandonedLeases(now: Date) throws -> Int { 0 }

    /// Default: nothing (jobs wait for their next retry).
    public func releaseWaitingJobs(appId: String, providerId: String, now: Date) throws -> Int { 0 }

    /// Default: nothing is stored (the fallback is tried again on the next send).
    public func recordTokenEnvironment(appId: String, token: String, environment: TokenEnvironment) throws {}

    /// Default: one ``finishPushJob(id:outcome:now:)`` per job.
    public func finishPushJobs(_ results: [(id: String, outcome: JobOutcome)], now: Date) throws {
        for result in results {
            try finishPushJob(id: result.id, outcome: result.outcome, now: now)
        }
    }
}

/// How many push jobs are in each state.
public struct OutboxCounts: Sendable, Hashable, Codable {
    /// Waiting to be claimed (including retries not yet due).
    public var pending: Int
    /// Claimed, lease not finished.
    public var inFlight: Int
    /// Delivered.
    public var delivered: Int
    /// Ended without delivery (`failed` or `tokenInvalid`).
    public var failed: Int
    /// Never sent because their moment had passed (`expired`).
    public var expired: Int

    /// Creates counts.
    public init(pending: Int, inFlight: Int, delivered: Int, failed: Int, expired: Int = 0) {
        self.pending = pending
        self.inFlight = inFlight
        self.delivered = delivered
        self.failed = failed
        self.expired = expired
    }
}
