#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// Everything the service keeps. ``SQLiteStore`` and `PostgresStore` implement it.
///
/// Methods are synchronous and may block on I/O. Deleting an app or a user deletes what
/// hangs off it (users, auth tokens, push tokens, providers; an app's groups, a user's
/// memberships of groups).
public protocol ServiceStore: OutboxStore, SharedStore, MessageChangeStore, EncryptionKeyStore, UnreadStore, PushHistoryStore,
    ActivityStore, GroupStore, GroupSendStore
{
    // MARK: Apps
    /// Adds an app; throws ``StoreError/conflict`` when the id is taken.
    func createApp(_ app: AppRecord) throws
    /// Replaces an app's name, webhook and privacy settings (not its default providers:
    /// ``setDefaultProvider(appId:kind:providerId:)``); throws ``StoreError/notFound``.
    func updateApp(_ app: AppRecord) throws
    /// Sets (or, with nil, clears) the app's default provider of `kind`: the provider of tokens
    /// registered without a `providerId`. False when the app has no provider `providerId` of
    /// that kind (nothing changes); throws ``StoreError/notFound`` when there is no such app.
    func setDefaultProvider(appId: String, kind: ProviderRecord.Kind, providerId: String?) throws -> Bool
    /// The app with this id.
    func app(id: String) throws -> AppRecord?
    /// All apps, by id.
    func apps() throws -> [AppRecord]
    /// Deletes an app and everything in it; false when there was none.
    func deleteApp(id: String) throws -> Bool

    // MARK: Users and auth tokens
    /// Adds a user; throws ``StoreError/conflict`` when the uid is taken.
    func createUser(_ user: UserRecord) throws
    /// The user.
    func user(appId: String, uid: String) throws -> UserRecord?
    /// The app's users, by uid.
    func users(appId: String) throws -> [UserRecord]
    /// Deletes a user with their auth tokens and push tokens, and removes them from the app's
    /// groups (``GroupStore``).
    func deleteUser(appId: String, uid: String) throws -> Bool
    /// Stores an auth token (its hash).
    func addAuthToken(_ token: AuthTokenRecord) throws
    /// The auth token with this hash.
    func authToken(hash: Data) throws -> AuthTokenRecord?
    /// The user's auth tokens (hashes and hints only).
    func authTokens(appId: String, uid: String) throws -> [AuthTokenRecord]
    /// Revokes the user's auth token with this hash, or all of the user's when `hash` is nil. In
    /// the same transaction the push tokens registered with them are deleted (and kept as
    /// ``RevokedPushToken``s for the retention period) and their jobs still queued are skipped
    /// with the rule `revoked`. The stores' one revocation; the forms below call it.
    func revokeAuthTokens(appId: String, uid: String, hash: Data?, now: Date) throws -> Revocation

    // MARK: Providers
    /// Adds a provider; throws ``StoreError/conflict`` when the id is taken in the app. The
    /// app's first provider of a kind becomes its default of that kind when it has none.
    func createProvider(_ provider: ProviderRecord) throws
    /// Replaces a provider; throws ``StoreError/notFound``.
    func updateProvider(_ provider: ProviderRecord) throws
    /// The provider.
    func provider(appId: String, id: String) throws -> ProviderRecord?
    /// The app's providers.
    func providers(appId: String) throws -> [ProviderRecord]
    /// Deletes a provider; when it was the app's default of its kind, the app has none then.
    func deleteProvider(appId: String, id: String) throws -> Bool

    // MARK: Push tokens
    /// Registers a token: the same token again updates it (and moves it to `uid` when
    /// another user had it); then the user's oldest tokens beyond `maxPerUser` are deleted
    /// (a negative `maxPerUser` keeps all). O(log n) in the number of tokens stored, whatever
    /// the user has; for a user over the limit (after the registration), also O(`maxPerUser`).
    /// The token's ``PushTokenRecord/encryption`` replaces the stored keys: a registration
    /// without keys clears them.
    func registerToken(_ token: PushTokenRecord, maxPerUser: Int) throws -> PushTokenRecord
    /// Deletes the tokens registered with this auth token; returns how many.
    func deleteTokens(appId: String, authTokenHash: Data) throws -> Int
    /// Deletes one token.
    func deleteToken(appId: String, token: String) throws -> Bool
    /// The app's tokens (of one user when `uid` is given), oldest first.
    func tokens(appId: String, uid: String?) throws -> [PushTokenRecord]
    /// When the token was last registered (its ``PushTokenRecord/updatedAt``), nil when the app
    /// has no such token: one primary-key lookup, whatever the app holds. The delivery engine
    /// asks it for a token APNs calls unregistered since a time (410), on the sending thread.
    func tokenRegisteredAt(appId: String, token: String) throws -> Date?

    // MARK: Sends (the outbox side that writes)
    /// Stores the jobs of a send (push jobs, taken batch by batch, and webhook jobs) and its
    /// idempotency record in one transaction, unless the key was used before (then no batch is
    /// made). `call`: the record of the call an initiated call's send rings, written (or
    /// replaced, as ``recordCall(_:)`` does) in the same transaction before the jobs, so a send
    /// that is refused, replayed or whose key was reused leaves no record and changes none.
    /// `response`: the answer to store with the key, made after the last batch.
    func acceptSend(
        appId: String, idempotencyKey: String, requestHash: Data, jobs: SendJobs, webhooks: [WebhookJob], call: CallRecord?,
        response: () throws -> Data, now: Date
    ) throws -> SendAcceptance
    /// The push jobs of one accepted send, oldest first.
    func pushJobs(requestId: String) throws -> [PushJob]
    /// The delivery log of one send request: each job's state, attempts and last error.
    func pushJobLog(appId: String, requestId: String) throws -> [PushJobLogEntry]
    /// Stores webhook jobs and push jobs (for example a decline and the push to the caller)
    /// in one transaction.
    func enqueue(webhooks: [WebhookJob], pushJobs: [PushJob]) throws
    /// Registers what runs when jobs were added (push jobs a preference did not skip, or webhook
    /// jobs), so that the workers wake at once instead of at their next poll; a second call
    /// replaces the first. ``SQLiteStore`` calls it after the commit of ``acceptSend(appId:idempotencyKey:requestHash:jobs:webhooks:response:now:)``
    /// or ``enqueue(webhooks:pushJobs:)``, on the thread that added them; `PostgresStore` when
    /// any instance on the database committed some (its `NOTIFY`, heard on the listener's thread),
    /// and once after the listener reconnected. Keep it short.
    func onJobsAdded(_ handler: @escaping @Sendable () -> Void)

    // MARK: Push events (the trace)
    /// The job of a push id in the app, as a delivery log line, with its request id.
    func pushJobEntry(appId: String, pushId: String) throws -> (requestId: String, entry: PushJobLogEntry)?
    /// Records what the SDK reported about a push (delivered, opened, replied). The first
    /// report of a step wins: returns the stored event (the earlier one when there was one)
    /// and whether this call added it.
    func recordPushEvent(_ event: PushEvent) throws -> (stored: PushEvent, added: Bool)
    /// The events of one send request's pushes, in time order.
    func pushEvents(appId: String, requestId: String) throws -> [PushEvent]

    // MARK: Webhook outbox
    /// Claims due webhook jobs (oldest first) and leases them; `attempts` is incremented.
    ///
    /// Per app at most `perApp` minus `busy[app]` (the app's posts the caller still has in
    /// flight): an app at its limit gets none, so one app's backlog never fills a claim that
    /// other apps' events are due in.
    func claimWebhookJobs(limit: Int, lease: TimeInterval, now: Date, perApp: Int, busy: [String: Int]) throws -> [WebhookJob]
    /// Ends a webhook job (`retryAt == nil`) or makes it claimable again at `retryAt`.
    func finishWebhookJob(id: String, retryAt: Date?, error: String?) throws
    /// Counts webhook jobs not yet delivered.
    func pendingWebhookJobCount() throws -> Int

    // MARK: Notification preferences
    /// A user's preferences (expired mutes included); empty when none were set.
    func preferences(appId: String, uid: String) throws -> PushPreferences
    /// Mutes a conversation (replacing an earlier mute of it).
    func setMute(appId: String, uid: String, mute: PushPreferences.Mute, now: Date) throws
    /// Ends a mute; false when there was none.
    func deleteMute(appId: String, uid: String, receiverType: String, receiver: String) throws -> Bool
    /// Sets what the user hears of a group (`all`, `mentions`, `none`).
    func setGroupLevel(appId: String, uid: String, guid: String, level: String, now: Date) throws
    /// Sets or (nil) clears the user's quiet hours.
    func setQuietHours(appId: String, uid: String, quietHours: PushPreferences.QuietHours?, now: Date) throws

    // MARK: Calls
    /// Records (or replaces) a call. Replacing keeps who already answered it.
    func recordCall(_ call: CallRecord) throws
    /// The call with this session id.
    func call(appId: String, sessionId: String) throws -> CallRecord?
    /// Records that `uid` answered the call (declined it, was busy, let it ring out), in one
    /// atomic step: the first answer of each recipient is `first`, a later one `repeated`; a
    /// user who is not a recipient (or a session no call has) gets `notRecipient`.
    func recordCallAnswer(appId: String, sessionId: String, uid: String) throws -> CallAnswer

    // MARK: Retention
    /// Deletes what finished before `cutoff` and returns how many rows of each kind went:
    /// push jobs in a final state (delivered, failed, expired, skipped) finished before it,
    /// delivered webhook jobs finished before it, trace events (`push_events`) recorded
    /// before it, idempotency records and call records created before it, changes of the
    /// changes feed recorded before it (each user's feed remembers the last position purged,
    /// so a cursor from before it is answered `truncated`) and revoked push tokens revoked
    /// before it. Jobs still to do (pending, waiting for a retry or a provider fix, leased) are
    /// never deleted, however old.
    ///
    /// Deletes at most `batchSize` rows per statement, each statement its own short
    /// transaction, until nothing is left: no long lock, no huge transaction. Idempotent:
    /// concurrent purges (several instances) divide the work, and a second purge with the
    /// same cutoff deletes nothing. A retry with an Idempotency-Key whose record was purged
    /// is a new send.
    func purgeFinished(before cutoff: Date, batchSize: Int) throws -> RetentionCounts
}

extension ServiceStore {
    /// Stores the jobs of a send that rings no call and its idempotency record in one
    /// transaction, unless the key was used before.
    public func acceptSend(
        appId: String, idempotencyKey: String, requestHash: Data, jobs: SendJobs, webhooks: [WebhookJob],
        response: () throws -> Data, now: Date
    ) throws -> SendAcceptance {
        try acceptSend(
            appId: appId, idempotencyKey: idempotencyKey, requestHash: requestHash, jobs: jobs, webhooks: webhooks, call: nil,
            response: response, now: now)
    }

    /// Stores the jobs of a send made beforehand and its idempotency record in one transaction,
    /// unless the key was used before.
    public func acceptSend(
        appId: String, idempotencyKey: String, requestHash: Data, jobs: [PushJob], webhooks: [WebhookJob], response: Data, now: Date
    ) throws -> SendAcceptance {
        try acceptSend(
            appId: appId, idempotencyKey: idempotencyKey, requestHash: requestHash, jobs: SendJobs(jobs), webhooks: webhooks,
            response: { response }, now: now)
    }

    /// Revokes one auth token, as ``revokeAuthTokens(appId:uid:hash:now:)`` does; nil when the
    /// user has no such token.
    public func revokeAuthToken(appId: String, uid: String, hash: Data, now: Date) throws -> Revocation? {
        let revocation = try revokeAuthTokens(appId: appId, uid: uid, hash: hash, now: now)
        return revocation.authTokens == 0 ? nil : revocation
    }

    /// Revokes all of a user's auth tokens, as ``revokeAuthTokens(appId:uid:hash:now:)`` does.
    public func revokeAuthTokens(appId: String, uid: String, now: Date) throws -> Revocation {
        try revokeAuthTokens(appId: appId, uid: uid, hash: nil, now: now)
    }

    /// Claims due webhook jobs with no limit per app.
    public func claimWebhookJobs(limit: Int, lease: TimeInterval, now: Date) throws -> [WebhookJob] {
        try claimWebhookJobs(limit: limit, lease: lease, now: now, perApp: .max, busy: [:])
    }
}

/// How a webhook claim shares itself among apps (both stores use it).
enum WebhookClaimShares {
    /// How many due rows a claim reads to fill `limit` slots among apps: some apps' rows may
    /// be over their share.
    static func candidates(limit: Int) -> Int { min(max(limit, 1) * 4, 256) }

    /// The apps whose posts in flight already fill their share (their rows are not read).
    static func full(perApp: Int, busy: [String: Int]) -> [String] {
        busy.filter { $0.value >= perApp }.keys.sorted()
    }

    /// The ids to lease from `candidates` (oldest first): at most `limit`, and per app at most
    /// `perApp` minus what it has in flight.
    static func pick(_ candidates: [(id: String, appId: String)], limit: Int, perApp: Int, busy: [String: Int]) -> [String] {
        var taken: [String: Int] = [:]
        var ids: [String] = []
        for candidate in candidates where ids.count < limit {
            let used = (busy[candidate.appId] ?? 0) + (taken[candidate.appId] ?? 0)
            guard used < perApp else { continue }
            taken[candidate.appId, default: 0] += 1
            ids.append(candidate.id)
        }
        return ids
    }
}
