#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The badge the service counts (issue 30). One connection behind a lock and `BEGIN IMMEDIATE`:
// each method's change and the totals it reads are one step for every writer on the file.
extension SQLiteStore {
    public func addUnreadCounting(
        appId: String, messages: [UnreadMessage], totalsOf uids: [String], now: Date
    ) throws -> (
        totals: [String: Int], added: [String]
    ) {
        try withConnection { connection in
            try connection.transaction { try Self.countUnread(connection, appId: appId, messages: messages, totalsOf: uids, now: now) }
        }
    }

    /// ``addUnreadCounting(appId:messages:totalsOf:now:)`` inside the caller's transaction (a
    /// group send's batch counts in the transaction that stores its jobs).
    static func countUnread(
        _ connection: SQLiteConnection, appId: String, messages: [UnreadMessage], totalsOf uids: [String], now: Date
    ) throws -> (totals: [String: Int], added: [String]) {
        var added: [String] = []
        for message in messages {
            // Only for a user of the app; a message already counted stays one row.
            let inserted = try connection.run(
                """
                INSERT INTO unread_messages (app_id, uid, conversation_id, message_id, created_at)
                SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE app_id = ? AND uid = ?)
                ON CONFLICT (app_id, uid, conversation_id, message_id) DO NOTHING
                """,
                [
                    .text(appId), .text(message.uid), .text(message.conversationId), .text(message.messageId), .date(now),
                    .text(appId), .text(message.uid),
                ])
            if inserted > 0 { added.append(message.uid) }
        }
        var totals: [String: Int] = [:]
        for uid in Set(uids + messages.map(\.uid)) {
            totals[uid] = try Self.unreadTotal(connection, appId: appId, uid: uid)
        }
        return (totals, added)
    }

    public func removeUnread(appId: String, uid: String, conversationId: String?, now: Date) throws -> (removed: Int, total: Int) {
        try withConnection { connection in
            try connection.transaction {
                // Marked read, not deleted: a send of one of them retried later counts nothing.
                let removed =
                    if let conversationId {
                        try connection.run(
                            """
                            UPDATE unread_messages SET read_at = ?
                            WHERE app_id = ? AND uid = ? AND conversation_id = ? AND read_at IS NULL
                            """,
                            [.date(now), .text(appId), .text(uid), .text(conversationId)])
                    } else {
                        try connection.run(
                            "UPDATE unread_messages SET read_at = ? WHERE app_id = ? AND uid = ? AND read_at IS NULL",
                            [.date(now), .text(appId), .text(uid)])
                    }
                return (removed, try Self.unreadTotal(connection, appId: appId, uid: uid))
            }
        }
    }

    public func removeUnreadMessage(
        appId: String, conversationId: String, messageId: String, uids: [String], now: Date
    ) throws -> [String: Int] {
        try withConnection { connection in
            try connection.transaction {
                var totals: [String: Int] = [:]
                for uid in Set(uids) {
                    let key: [SQLValue] = [.text(appId), .text(uid), .text(conversationId), .text(messageId)]
                    let removed = try connection.run(
                        """
                        UPDATE unread_messages SET read_at = ?
                        WHERE app_id = ? AND uid = ? AND conversation_id = ? AND message_id = ? AND read_at IS NULL
                        """,
                        [.date(now)] + key)
                    if removed > 0 { totals[uid] = try Self.unreadTotal(connection, appId: appId, uid: uid) }
                    // Not counted yet (the deletion came first): marked, so its send counts nothing.
                    try connection.run(
                        """
                        INSERT INTO unread_messages (app_id, uid, conversation_id, message_id, created_at, read_at)
                        SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE app_id = ? AND uid = ?)
                        ON CONFLICT (app_id, uid, conversation_id, message_id) DO NOTHING
                        """,
                        key + [.date(now), .date(now), .text(appId), .text(uid)])
                }
                return totals
            }
        }
    }

    public func forgetUnreadMessage(appId: String, conversationId: String, messageId: String, uids: [String]) throws {
        try withConnection { connection in
            try connection.transaction {
                for uid in Set(uids) {
                    try connection.run(
                        "DELETE FROM unread_messages WHERE app_id = ? AND uid = ? AND conversation_id = ? AND message_id = ?",
                        [.text(appId), .text(uid), .text(conversationId), .text(messageId)])
                }
            }
        }
    }

    public func unreadCounts(appId: String, uid: String) throws -> UnreadCounts {
        try withConnection { connection in
            UnreadCounts(
                conversations: try connection.query(
                    """
                    SELECT conversation_id, COUNT(*) FROM unread_messages WHERE app_id = ? AND uid = ? AND read_at IS NULL
                    GROUP BY conversation_id ORDER BY conversation_id
                    """,
                    [.text(appId), .text(uid)]
                ) { UnreadCounts.Conversation(conversationId: $0.text(0), unread: Int($0.int(1))) })
        }
    }

    /// A user's total: a count over the primary key's prefix (read rows left out).
    private static func unreadTotal(_ connection: SQLiteConnection, appId: String, uid: String) throws -> Int {
        Int(
            try connection.query(
                "SELECT COUNT(*) FROM unread_messages WHERE app_id = ? AND uid = ? AND read_at IS NULL", [.text(appId), .text(uid)]
            ) {
                $0.int(0)
            }.first ?? 0)
    }
}
