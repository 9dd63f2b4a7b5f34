#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One entry of a user's changes feed (`GET /notifications/push/v1/changes`,
/// Contract/WIRE-CONTRACT.md §2): a message pushed to them was edited or deleted, or they read a
/// conversation on one of their devices.
public struct PushChange: Sendable, Hashable {
    /// What changed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A message pushed to the user was edited.
        case edited
        /// A message pushed to the user was deleted.
        case deleted
        /// The user read a conversation on one of their devices.
        case read
    }

    /// The app.
    public var appId: String
    /// The user whose feed it is in.
    public var uid: String
    /// What changed.
    public var kind: Kind
    /// The conversation (`<uidA>_user_<uidB>` or `group_<guid>`, as in chat pushes).
    public var conversationId: String
    /// The message's id (edits and deletions).
    public var messageId: String?
    /// The identifier of the message's notification on the device: the `apns-collapse-id` of its
    /// push (edits and deletions).
    public var notificationId: String?
    /// The new title, as the message's push would show it (edits).
    public var title: String?
    /// The new body, as the message's push would show it (edits).
    public var body: String?
    /// The unread count the reader gave (reads), if any.
    public var unreadCount: Int?
    /// When it happened (the edit's or deletion's time as the app sent it; a read's arrival).
    public var at: Date
    /// When the service recorded it (retention counts from it).
    public var createdAt: Date

    /// Creates a change.
    public init(
        appId: String, uid: String, kind: Kind, conversationId: String, messageId: String? = nil, notificationId: String? = nil,
        title: String? = nil, body: String? = nil, unreadCount: Int? = nil, at: Date, createdAt: Date
    ) {
        self.appId = appId
        self.uid = uid
        self.kind = kind
        self.conversationId = conversationId
        self.messageId = messageId
        self.notificationId = notificationId
        self.title = title
        self.body = body
        self.unreadCount = unreadCount
        self.at = at
        self.createdAt = createdAt
    }
}

/// One page of a user's changes feed, read by ``MessageChangeStore/changes(appId:uid:after:limit:)``.
public struct PushChangesPage: Sendable, Hashable {
    /// One change and its position in the feed (positions grow in the order changes were
    /// committed; the feed's cursor is a position).
    public struct Entry: Sendable, Hashable {
        /// The change's position.
        public var position: Int64
        /// The change.
        public var change: PushChange

        /// Creates an entry.
        public init(position: Int64, change: PushChange) {
            self.position = position
            self.change = change
        }
    }

    /// The changes after the position asked for, oldest first, at most the limit asked for.
    public var entries: [Entry]
    /// Whether more changes wait after the last entry.
    public var hasMore: Bool
    /// The highest position of the user's changes the retention purge deleted (0: none).
    public var purgedThrough: Int64
    /// The highest position the store has given to any change (of any user): a cursor beyond it
    /// did not come from this store.
    public var latest: Int64

    /// Creates a page.
    public init(entries: [Entry], hasMore: Bool, purgedThrough: Int64, latest: Int64) {
        self.entries = entries
        self.hasMore = hasMore
        self.purgedThrough = purgedThrough
        self.latest = latest
    }
}
