#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// A send to a group too large to make its jobs while the request waits (issue 31,
/// docs/design/group-sends.md): its members, taken when it was accepted, are expanded into
/// jobs in the background, a batch at a time, behind a durable cursor.
public struct GroupSend: Sendable, Hashable {
    /// Where its expansion is.
    public enum State: String, Sendable, Hashable {
        /// Members are left to expand.
        case expanding
        /// Every member was expanded.
        case done
        /// It could not be expanded (its stored request could not be read again); `lastError` says why.
        case failed
    }

    /// The send's request id (what its answer, its jobs, log and trace name).
    public var id: String
    /// The app.
    public var appId: String
    /// The group it was sent to.
    public var guid: String
    /// The send's body as it was accepted (JSON), read again for each batch.
    public var request: Data
    /// The members it goes to, taken when it was accepted (its sender left out).
    public var members: Int
    /// The members expanded so far.
    public var done: Int
    /// The jobs made so far (pushes that go out; skipped ones not counted).
    public var jobs: Int
    /// The last member expanded (members are expanded in uid order); nil before the first batch.
    public var cursor: String?
    /// Where the expansion is.
    public var state: State
    /// When it was accepted.
    public var createdAt: Date
    /// When its expansion ended (done or failed).
    public var finishedAt: Date?
    /// Why it failed.
    public var lastError: String?

    /// Creates a record.
    public init(
        id: String, appId: String, guid: String, request: Data, members: Int = 0, done: Int = 0, jobs: Int = 0,
        cursor: String? = nil, state: State = .expanding, createdAt: Date, finishedAt: Date? = nil, lastError: String? = nil
    ) {
        self.id = id
        self.appId = appId
        self.guid = guid
        self.request = request
        self.members = members
        self.done = done
        self.jobs = jobs
        self.cursor = cursor
        self.state = state
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.lastError = lastError
    }
}

/// One batch of a group send's expansion (``GroupSendStore/commitGroupSendBatch(_:lease:now:build:)``).
public struct GroupSendBatch: Sendable, Hashable {
    /// The send.
    public var id: String
    /// Its app.
    public var appId: String
    /// The send's cursor the batch was read after (nil: from the first member): the batch is
    /// stored only while the send's cursor is still this.
    public var after: String?
    /// The batch's members, in uid order (its last becomes the cursor).
    public var uids: [String]
    /// The messages the batch counts unread (the badge the service counts), in the same transaction.
    public var unread: [UnreadMessage]
    /// The members whose unread totals the jobs need.
    public var totalsOf: [String]

    /// Creates a batch.
    public init(id: String, appId: String, after: String?, uids: [String], unread: [UnreadMessage] = [], totalsOf: [String] = []) {
        self.id = id
        self.appId = appId
        self.after = after
        self.uids = uids
        self.unread = unread
        self.totalsOf = totalsOf
    }
}

/// What every ``ServiceStore`` keeps of group sends expanded in the background (issue 31).
///
/// The expansion's safety rests on two things. A send is leased to one store at a time
/// (``claimGroupSend(lease:now:)``): instances on one database never work on the same send at
/// once, and a send whose holder died is taken over. And each batch is one transaction that
/// stores its jobs, counts its badges and moves the cursor, and only while the store still
/// holds the lease and the cursor is where the batch was read: a crash loses a batch whole (it
/// is made again after the restart), and a batch is never stored twice.
public protocol GroupSendStore: Sendable {
    /// Accepts a group send in one transaction: unless `idempotencyKey` was used before (then the
    /// stored answer, or ``SendAcceptance/keyReused`` for another body), records `send` with the
    /// group's members as they are now, `sender` left out, and the idempotency key with the
    /// answer `response` makes of the number of members taken. Throws ``StoreError/notFound``
    /// when the app has no group `send.guid`. `response` runs inside the transaction: it must
    /// not call the store.
    func acceptGroupSend(
        _ send: GroupSend, sender: String?, idempotencyKey: String, requestHash: Data, now: Date, response: (Int) throws -> Data
    ) throws -> SendAcceptance

    /// Leases the oldest group send still expanding that no live store holds (its lease is free,
    /// ran out, is this store's own, or belongs to a store whose process is gone) for `lease`
    /// seconds; nil when there is none.
    func claimGroupSend(lease: TimeInterval, now: Date) throws -> GroupSend?

    /// At most `limit` of a send's members after `after` (from the first when nil), in uid order.
    func groupSendMembers(id: String, after: String?, limit: Int) throws -> [String]

    /// Stores one batch in one transaction, if this store still holds the send's lease and its
    /// cursor is still `batch.after`: counts `batch.unread` and reads the totals of
    /// `batch.totalsOf` (as ``UnreadStore/addUnreadCounting(appId:messages:totalsOf:now:)``),
    /// hands them to `build`, stores the jobs it returns, moves the cursor to the batch's last
    /// member, adds to `done` and `jobs`, renews the lease for `lease` seconds, and ends the
    /// send (`done`) when no member is left after the batch. False, with nothing stored, when
    /// the lease or the cursor moved (another store took the send over). `build` runs inside
    /// the transaction: it must not call the store; what it throws rolls the batch back.
    func commitGroupSendBatch(
        _ batch: GroupSendBatch, lease: TimeInterval, now: Date, build: ([String: Int]) throws -> [PushJob]
    ) throws -> Bool

    /// Ends a group send that cannot be expanded: state `failed` with `reason`.
    func failGroupSend(id: String, reason: String, now: Date) throws

    /// The app's group send with this request id; nil when there is none (an inline send, or
    /// another app's).
    func groupSend(appId: String, id: String) throws -> GroupSend?
}
