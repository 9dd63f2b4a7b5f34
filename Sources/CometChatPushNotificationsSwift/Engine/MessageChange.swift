import Foundation

/// An edit, a deletion or a read in one of the user's conversations, as an action push
/// (`Contract/payloads/chat-edited.json`, `chat-deleted.json`), a read push (`read.json`) or an
/// entry of the changes feed (`Contract/client/changes.json`) tells it. Each is applied the same
/// way, whichever way it came (`MessageChangeApplier`).
struct MessageChange: Sendable, Equatable {
    /// What happened.
    enum Kind: String, Sendable {
        /// A message's text changed.
        case edited
        /// A message was deleted.
        case deleted
        /// The conversation was read on another device.
        case read
    }

    var kind: Kind
    /// The conversation, as chat pushes name it (their `conversationId` and `thread-id`).
    var conversationId: String
    /// The message (the `tag` of its push); edits and deletions only.
    var messageId: String?
    /// The identifier of the message's notification on the device: its push's collapse id.
    var notificationId: String?
    /// An edit's new title and text, as the message's push would show them.
    var title: String?
    var body: String?
    /// When it happened: an edit push's `editedAt`, a feed entry's `at`.
    var at: Date?
    /// A read's unread count, the badge to show.
    var unreadCount: Int?

    init(
        kind: Kind, conversationId: String, messageId: String? = nil, notificationId: String? = nil, title: String? = nil,
        body: String? = nil, at: Date? = nil, unreadCount: Int? = nil
    ) {
        self.kind = kind
        self.conversationId = conversationId
        self.messageId = messageId
        self.notificationId = notificationId
        self.title = title
        self.body = body
        self.at = at
        self.unreadCount = unreadCount
    }

    /// An action push: `type: chat` with `action: edited` or `deleted`, a `conversationId` and the
    /// message's `tag`; `nil` for anything else (a new message has no `action`).
    init?(actionPush payload: [AnyHashable: Any]) {
        guard PayloadReader.string(payload["type"])?.lowercased() == "chat",
            let action = PayloadReader.string(payload["action"])?.lowercased(),
            let kind = Kind(rawValue: action), kind != .read,
            let conversation = PayloadReader.string(payload["conversationId"]),
            let message = PayloadReader.string(payload["tag"])
        else { return nil }
        self.init(
            kind: kind, conversationId: conversation, messageId: message,
            notificationId: PayloadReader.string(payload["notificationId"]),
            title: PayloadReader.string(payload["title"]), body: PayloadReader.string(payload["body"]),
            at: Self.date(payload["editedAt"]))
    }

    /// A read push.
    init(_ read: ReadSyncPush) {
        self.init(kind: .read, conversationId: read.conversationId, unreadCount: read.unreadCount)
    }

    /// One entry of the changes feed: `{kind, conversationId, at, …}`; `nil` when its kind is
    /// unknown (a later service may add kinds) or a field it needs is missing.
    init?(feedEntry entry: [String: Any]) {
        guard let kindName = PayloadReader.string(entry["kind"])?.lowercased(), let kind = Kind(rawValue: kindName),
            let conversation = PayloadReader.string(entry["conversationId"])
        else { return nil }
        let message = PayloadReader.string(entry["messageId"])
        if kind != .read, message == nil { return nil }
        self.init(
            kind: kind, conversationId: conversation, messageId: message,
            notificationId: PayloadReader.string(entry["notificationId"]),
            title: PayloadReader.string(entry["title"]), body: PayloadReader.string(entry["body"]),
            at: Self.date(entry["at"]), unreadCount: PayloadReader.count(entry["unreadCount"]))
    }

    /// Milliseconds since 1970, as a number or as text.
    static func date(_ value: Any?) -> Date? {
        guard let milliseconds = PayloadReader.integer(value), milliseconds > 0 else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `date` in milliseconds since 1970, as text.
    static func milliseconds(_ date: Date) -> String { String(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
}

/// The changes feed of a self-hosted service (`GET /notifications/push/v1/changes`, wire contract
/// §2): its request and its answer.
enum ChangesWire {
    static let path = "/notifications/push/v1/changes"
    /// How many changes one page asks for (the service allows 1 to 500).
    static let pageSize = 200

    /// The path and query of a page after `cursor`; without one, the service answers no changes
    /// and the cursor of now (where a fresh installation starts).
    static func request(since cursor: String?, limit: Int = pageSize) -> String {
        guard let cursor else { return "\(path)?limit=\(limit)" }
        return "\(path)?since=\(PNPercentEncoding.pathSegment(cursor))&limit=\(limit)"
    }

    /// One page of the feed.
    struct Page: Sendable, Equatable {
        /// The changes the SDK knows how to apply, oldest first.
        var changes: [MessageChange]
        /// Where the next page (or the next catch-up) starts.
        var cursor: String
        /// More changes wait after ``cursor``.
        var hasMore: Bool
        /// Changes after the cursor asked from were already purged: the SDK cannot know them.
        var truncated: Bool
    }

    /// The page of an answer `{"data": {changes, cursor, hasMore, truncated?}}`; `nil` when it is
    /// not one.
    static func page(_ body: Data) -> Page? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let data = object["data"] as? [String: Any], let cursor = PayloadReader.string(data["cursor"]),
            let entries = data["changes"] as? [Any]
        else { return nil }
        return Page(
            changes: entries.compactMap { ($0 as? [String: Any]).flatMap(MessageChange.init(feedEntry:)) }, cursor: cursor,
            hasMore: data["hasMore"] as? Bool ?? false, truncated: data["truncated"] as? Bool ?? false)
    }
}
