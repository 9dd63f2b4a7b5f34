#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One chat message counted unread for one recipient (the service-counted badge, issue 30).
public struct UnreadMessage: Sendable, Hashable {
    /// The recipient.
    public var uid: String
    /// The conversation, as pushes name it (`alice_user_bob`, `group_<guid>`).
    public var conversationId: String
    /// The message's id (the `tag` of its push).
    public var messageId: String

    /// Creates a record.
    public init(uid: String, conversationId: String, messageId: String) {
        self.uid = uid
        self.conversationId = conversationId
        self.messageId = messageId
    }
}

/// A user's unread messages: the total (the badge) and the count of each conversation.
public struct UnreadCounts: Sendable, Hashable {
    /// One conversation's count.
    public struct Conversation: Sendable, Hashable {
        /// The conversation id.
        public var conversationId: String
        /// Its unread messages (at least 1).
        public var unread: Int

        /// Creates a record.
        public init(conversationId: String, unread: Int) {
            self.conversationId = conversationId
            self.unread = unread
        }
    }

    /// Every conversation with unread messages, by id.
    public var conversations: [Conversation]
    /// The sum of the conversations' counts.
    public var total: Int { conversations.reduce(0) { $0 + $1.unread } }

    /// Creates a record.
    public init(conversations: [Conversation]) {
        self.conversations = conversations
    }
}

/// What every ``ServiceStore`` keeps for the badge the service counts (`badge: "auto"`,
/// docs/design/service-badge.md): one row per (app, recipient, conversation, message id).
/// Each method is one transaction, and the changes of one user are serialized across
/// connections and instances, so a total a method returns is the one its change left.
public protocol UnreadStore: Sendable {
    /// Counts `messages` unread, then returns the totals of `totalsOf` (with every recipient of
    /// `messages`). A message already counted for its recipient is not counted again (a retried
    /// send), nor one they already read or that was deleted (its row stays, marked, for the
    /// retention period: a send retried after the read counts nothing), and a recipient who is
    /// not a user of the app is not counted (total 0).
    /// `added` lists the recipients whose row this call inserted (not those already counted),
    /// so that a send refused afterwards can take back exactly what it counted
    /// (``forgetUnreadMessage(appId:conversationId:messageId:uids:)``).
    func addUnreadCounting(
        appId: String, messages: [UnreadMessage], totalsOf uids: [String], now: Date
    ) throws -> (
        totals: [String: Int], added: [String]
    )

    /// Marks `uid`'s unread messages of a conversation read at `now` (a read), or all of them
    /// when `conversationId` is nil (a reset); returns how many were unread and the total after.
    func removeUnread(appId: String, uid: String, conversationId: String?, now: Date) throws -> (removed: Int, total: Int)

    /// Marks one message (a deletion) no longer unread for `uids`, also for those it is not yet
    /// counted for (a send of it that comes later counts nothing); returns the totals after of
    /// those it was counted unread for (the others are left out).
    func removeUnreadMessage(
        appId: String, conversationId: String, messageId: String, uids: [String], now: Date
    ) throws -> [String: Int]

    /// Forgets the rows of one message for `uids` altogether: what a refused send takes back
    /// (``addUnreadCounting(appId:messages:totalsOf:now:)``'s `added`), so that the same send,
    /// accepted later, counts.
    func forgetUnreadMessage(appId: String, conversationId: String, messageId: String, uids: [String]) throws

    /// `uid`'s unread messages per conversation.
    func unreadCounts(appId: String, uid: String) throws -> UnreadCounts
}

extension UnreadStore {
    /// Counts `messages` unread, then returns the totals of `totalsOf` (with every recipient of
    /// `messages`), as ``addUnreadCounting(appId:messages:totalsOf:now:)`` does.
    public func addUnread(appId: String, messages: [UnreadMessage], totalsOf uids: [String], now: Date) throws -> [String: Int] {
        try addUnreadCounting(appId: appId, messages: messages, totalsOf: uids, now: now).totals
    }
}
