#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// What a send reads of its recipients before it builds their jobs: their tokens, the
/// notification preferences of those who have tokens, and the push tokens a revocation deleted.
/// A send to named recipients reads them while the request waits; a group send's batch reads
/// them before the transaction that stores its jobs (which must not call the store).
struct RecipientFacts {
    /// Each recipient's tokens.
    var tokens: [String: [PushTokenRecord]] = [:]
    /// The preferences of each recipient with tokens (nothing to change otherwise).
    var preferences: [String: PushPreferences] = [:]
    /// Each recipient's push tokens a revocation deleted (recorded as skipped jobs, rule `revoked`).
    var revoked: [String: [RevokedPushToken]] = [:]
    /// The app's `holdWhileActiveSeconds` (issue 31): 0 holds nothing.
    var holdSeconds = 0
    /// What each recipient reads elsewhere now, read only when the app holds pushes.
    var activities: [String: [UserActivity]] = [:]

    /// How many tokens the recipients have, revoked ones included: about how many jobs the
    /// send makes.
    var tokenCount: Int {
        tokens.values.reduce(0) { $0 + $1.count } + revoked.values.reduce(0) { $0 + $1.count }
    }

    /// The facts of `uids` in `appId`, whose hold while a user reads is `holdSeconds`.
    static func read(_ store: any ServiceStore, appId: String, uids: [String], holdSeconds: Int, now: Date) throws -> RecipientFacts {
        var facts = RecipientFacts()
        facts.holdSeconds = holdSeconds
        if holdSeconds > 0 { facts.activities = try store.activities(appId: appId, uids: uids, now: now) }
        for uid in uids {
            let tokens = try store.tokens(appId: appId, uid: uid)
            facts.tokens[uid] = tokens
            if !tokens.isEmpty { facts.preferences[uid] = try store.preferences(appId: appId, uid: uid) }
        }
        facts.revoked = Dictionary(grouping: try store.revokedPushTokens(appId: appId, uids: uids), by: \.uid)
        return facts
    }
}

extension JobFactory {
    /// The jobs of `event` for `recipients` (one per token, as their preferences make it, and a
    /// skipped one per revoked token) and each recipient's entry in the send's answer:
    /// `{uid, jobs, rule?, badge?}` (`jobs`: the pushes that go out; `badge`: the service's count,
    /// for a recipient whose badge it is), and the pushes held while their user reads the
    /// conversation elsewhere (``ActivityHold``), to record once the jobs are stored.
    ///
    /// With `checkingSize`, a push APNs would refuse (too large) is refused, naming the field (the
    /// send's door); a group send's background batch, which can no longer refuse, stores it and
    /// the sender's own check fails it before it is sent.
    func jobs(
        for event: SendRequest.Event, recipients: [SendRequest.Recipient], facts: RecipientFacts, now: Date, checkingSize: Bool
    ) throws(APIError) -> (jobs: [PushJob], entries: [[String: Any]], held: [ActivityHold.Held]) {
        let batches = RecipientJobBatches(
            factory: self, event: event, recipients: recipients, facts: facts, now: now, checkingSize: checkingSize)
        return (try batches.rest(), batches.entries, batches.held)
    }
}

/// A send's jobs made recipient by recipient (``JobFactory/jobs(for:recipients:facts:now:checkingSize:)``
/// says what each gets), for the store to take batch by batch (``SendJobs``) so that a large
/// send is never in memory whole. What the send's answer needs is gathered on the way: the
/// entries, the held pushes and the counts are complete once ``next()`` returned nil.
final class RecipientJobBatches {
    private let factory: JobFactory
    private let event: SendRequest.Event
    private let recipients: [SendRequest.Recipient]
    private let facts: RecipientFacts
    private let now: Date
    private let checkingSize: Bool
    private var position = 0
    /// Each recipient's entry in the send's answer, so far.
    private(set) var entries: [[String: Any]] = []
    /// The pushes held while their user reads elsewhere, so far.
    private(set) var held: [ActivityHold.Held] = []
    /// The jobs made so far that go out.
    private(set) var toSend = 0
    /// The jobs made so far that are recorded skipped.
    private(set) var skipped = 0

    init(
        factory: JobFactory, event: SendRequest.Event, recipients: [SendRequest.Recipient], facts: RecipientFacts, now: Date,
        checkingSize: Bool
    ) {
        self.factory = factory
        self.event = event
        self.recipients = recipients
        self.facts = facts
        self.now = now
        self.checkingSize = checkingSize
    }

    /// The jobs of every recipient not made yet, in one array.
    /// - Throws: as ``next()``.
    func rest() throws(APIError) -> [PushJob] {
        var jobs: [PushJob] = []
        while let batch = try next() { jobs += batch }
        return jobs
    }

    /// The next recipient's jobs (possibly none), or nil after the last recipient.
    /// - Throws: with `checkingSize`, the refusal of a push APNs would refuse.
    func next() throws(APIError) -> [PushJob]? {
        guard position < recipients.count else { return nil }
        let recipient = recipients[position]
        position += 1
        let tokens = facts.tokens[recipient.uid] ?? []
        var treatment = PreferenceRules.Treatment.normal
        if !tokens.isEmpty, let preferences = facts.preferences[recipient.uid] {
            treatment = PreferenceRules.decide(
                event: event, recipient: recipient.uid, preferences: preferences,
                fallbackTimezone: PreferenceRules.registrationTimezone(tokens), now: now)
        }
        var recipientJobs = factory.jobs(for: event, uid: recipient.uid, badge: recipient.badge, tokens: tokens, treatment: treatment)
        if let activity = facts.activities[recipient.uid],
            let waiting = ActivityHold.apply(
                &recipientJobs, event: event, tokens: tokens, activities: activity, seconds: facts.holdSeconds, now: now)
        {
            held.append(ActivityHold.Held(uid: recipient.uid, conversationId: waiting.conversationId, jobIds: waiting.jobIds))
        }
        if checkingSize, let refusal = PayloadSize.check(recipientJobs, event: event, badge: recipient.badge) { throw refusal }
        let going = recipientJobs.count { !$0.skipped }
        var entry: [String: Any] = ["uid": recipient.uid, "jobs": going]
        if let rule = treatment.rule { entry["rule"] = rule }
        if recipient.autoBadge { entry["badge"] = recipient.badge ?? 0 }
        entries.append(entry)
        recipientJobs += factory.revokedJobs(
            for: event, uid: recipient.uid, badge: recipient.badge, revoked: facts.revoked[recipient.uid] ?? [], registered: tokens)
        let sent = recipientJobs.count { !$0.skipped }
        toSend += sent
        skipped += recipientJobs.count - sent
        return recipientJobs
    }
}
