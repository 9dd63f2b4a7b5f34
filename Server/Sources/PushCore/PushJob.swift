#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One push to one token, as stored in the durable outbox.
///
/// The service creates jobs when it accepts a send (in the same transaction as the
/// request's idempotency record); the delivery engine claims them from an ``OutboxStore``,
/// hands them to a ``PushSender`` and reports a ``JobOutcome``.
public struct PushJob: Sendable, Hashable, Identifiable {
    /// Unique job id (a UUID string). Senders may use it as `apns-id`.
    public var id: String
    /// The app the job belongs to.
    public var appId: String
    /// The id of the accepted send request that produced the job.
    public var requestId: String
    /// The recipient's user id.
    public var uid: String
    /// The device token (lowercase hex for APNs, the registration token for FCM).
    public var token: String
    /// The kind of token, which picks APNs or FCM.
    public var platform: TokenPlatform
    /// What the push is about.
    public var kind: PushKind
    /// The provider (APNs or FCM credentials) to send with.
    public var providerId: String
    /// The complete APNs payload as UTF-8 JSON: `aps` plus the §4 keys at the top level.
    /// For FCM tokens, senders put it under `message.apns.payload` and copy the top-level
    /// keys other than `aps` into `message.data` (as strings).
    public var payload: Data
    /// The APNs headers.
    public var headers: PushHeaders
    /// How many times the job has been claimed, this claim included.
    public var attempts: Int
    /// The job is not claimed before this time.
    public var notBefore: Date
    /// When the job was created.
    public var createdAt: Date
    /// The APNs environment of the token, when the app told it at registration or a send
    /// found it; nil means unknown (the provider's environment is tried first, then the other).
    public var environment: TokenEnvironment?
    /// The notification preference rule that changed or skipped the push (`muted`,
    /// `group-none`, `group-mentions-only`, `quiet-hours`, `quiet-hours-calls`), if any.
    public var rule: String?
    /// Whether a preference rule skipped the push: the job is stored in state `skipped`, never
    /// claimed or sent, for the delivery log.
    public var skipped: Bool
    /// Set for a push of a `private` app: ``payload`` is then only the part sent in clear, and
    /// the sender adds `enc`, this plaintext encrypted for the token at send time.
    public var privatePush: PrivatePush?
    /// The `aps.interruption-level` the push carries (`passive`, `active`, `time-sensitive`),
    /// for the trace; nil for a push without one (VoIP, background, campaigns, skipped).
    public var interruptionLevel: String?
    /// Why it has that level: the kind the app's delivery policy matched (`mention`, `direct`,
    /// `group`, `reaction`, `action`, `call`), or the preference that overrode it (`quiet-hours`,
    /// `quiet-hours-calls`); a `time-sensitive` level sent as `active` says so.
    public var levelReason: String?

    /// Creates a job.
    public init(
        id: String, appId: String, requestId: String, uid: String, token: String,
        platform: TokenPlatform, kind: PushKind, providerId: String, payload: Data,
        headers: PushHeaders, attempts: Int = 0, notBefore: Date, createdAt: Date, environment: TokenEnvironment? = nil,
        rule: String? = nil, skipped: Bool = false, privatePush: PrivatePush? = nil, interruptionLevel: String? = nil,
        levelReason: String? = nil
    ) {
        self.interruptionLevel = interruptionLevel
        self.levelReason = levelReason
        self.privatePush = privatePush
        self.environment = environment
        self.rule = rule
        self.skipped = skipped
        self.id = id
        self.appId = appId
        self.requestId = requestId
        self.uid = uid
        self.token = token
        self.platform = platform
        self.kind = kind
        self.providerId = providerId
        self.payload = payload
        self.headers = headers
        self.attempts = attempts
        self.notBefore = notBefore
        self.createdAt = createdAt
    }
}
