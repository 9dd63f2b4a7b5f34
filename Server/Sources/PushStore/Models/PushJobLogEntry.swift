#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// One line of the delivery log: what happened to one push job.
public struct PushJobLogEntry: Sendable, Hashable {
    /// The job id.
    public var id: String
    /// The recipient.
    public var uid: String
    /// The device token.
    public var token: String
    /// The kind of token.
    public var platform: TokenPlatform
    /// What the push is about.
    public var kind: PushKind
    /// `pending`, `leased` (being sent), `delivered`, `failed`, `expired` or `skipped` (by a
    /// notification preference).
    public var state: String
    /// Attempts so far.
    public var attempts: Int
    /// The last provider error (reason, or why it was retried or failed), if any.
    public var lastError: String?
    /// When the job was accepted.
    public var createdAt: Date
    /// When it ended (delivered or failed), if it has.
    public var finishedAt: Date?
    /// The notification preference rule that changed or skipped the push, if any.
    public var rule: String?
    /// The `aps.interruption-level` of the push, if it has one (``PushJob/interruptionLevel``).
    public var interruptionLevel: String?
    /// Why it has that level (``PushJob/levelReason``).
    public var levelReason: String?

    /// Creates an entry.
    public init(
        id: String, uid: String, token: String, platform: TokenPlatform, kind: PushKind, state: String, attempts: Int,
        lastError: String?, createdAt: Date, finishedAt: Date?, rule: String? = nil, interruptionLevel: String? = nil,
        levelReason: String? = nil
    ) {
        self.interruptionLevel = interruptionLevel
        self.levelReason = levelReason
        self.rule = rule
        self.id = id
        self.uid = uid
        self.token = token
        self.platform = platform
        self.kind = kind
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.finishedAt = finishedAt
    }
}
