#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a user is reading a conversation now (issue 31, "quiet when already reading").
public struct UserActivity: Sendable, Hashable {
    /// Who reported it: a device (the hex SHA-256 of the auth token it registered its tokens
    /// with) or ``UserActivity/backEnd`` (the app's back end, for its web or desktop clients).
    public var source: String
    /// The conversation, as pushes name it (`alice_user_bob`, `group_<guid>`).
    public var conversationId: String
    /// When it ends by itself.
    public var expiresAt: Date

    /// The source of activity the app's back end reports.
    public static let backEnd = "back-end"

    /// Creates a record.
    public init(source: String, conversationId: String, expiresAt: Date) {
        self.source = source
        self.conversationId = conversationId
        self.expiresAt = expiresAt
    }
}

/// What every ``ServiceStore`` keeps for holding pushes while the user reads the conversation
/// elsewhere (docs/design/hold-while-active.md): each user's activity per source, until it
/// expires, and the pushes held because of it, until their hold ends.
public protocol ActivityStore: Sendable {
    /// Sets `uid`'s activity from `source` (one conversation per source) until `expiresAt`, or
    /// clears it when `conversationId` is nil. Activity that expired goes at the same time.
    func setActivity(appId: String, uid: String, source: String, conversationId: String?, expiresAt: Date, now: Date) throws

    /// The activity of these users that has not expired at `now`, by uid.
    func activities(appId: String, uids: [String], now: Date) throws -> [String: [UserActivity]]

    /// Records that these jobs of `uid` in a conversation are held until `until`, so that a
    /// read can cancel them. Held records whose hold ended go at the same time.
    func recordHeldPushes(appId: String, uid: String, conversationId: String, jobIds: [String], until: Date, now: Date) throws

    /// Skips, with `rule`, `uid`'s pushes of the conversation whose hold has not ended and that
    /// are still waiting (not being sent, not finished); returns their ids.
    func cancelHeldPushes(appId: String, uid: String, conversationId: String, rule: String, now: Date) throws -> [String]
}
