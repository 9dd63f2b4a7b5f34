#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The badge the service counts (issue 30): SQLiteStore's statements in PostgreSQL. Each method
// first takes the transaction-scoped advisory locks of the users it changes (in uid order, so
// two transactions never wait on each other in a cycle): a user's changes and the totals they
// return are serialized across connections and instances, as SQLite's one writer does.
extension PostgresStore {
    public func addUnreadCounting(
        appId: String, messages: [UnreadMessage], totalsOf uids: [String], now: Date
    ) throws -> (
        totals: [String: Int], added: [String]
    ) {
        let users = Set(uids + messages.map(\.uid))
        return try withConnection { connection in
            try connection.transaction {
                try Self.lockUnread(connection, appId: appId, uids: users)
                var added: [String] = []
                for message in messages {
                    let inserted = try connection.query(
                        """
                        INSERT INTO unread_messages (app_id, uid, conversation_id, message_id, created_at)
                        SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM users WHERE app_id = $1 AND uid = $2)
                        ON CONFLICT (app_id, uid, conversation_id, message_id) DO NOTHING
                        """,
                        [.text(appId), .text(message.uid), .text(message.conversationId), .text(message.messageId), .date(now)]
                    ).affected
                    if inserted > 0 { added.append(message.uid) }
                }
                var totals: [String: Int] = [:]
                for uid in users { totals[uid] = try Self.unreadTotal(connection, appId: appId, uid: uid) }
                return (totals, added)
            }
        }
    }

    public func removeUnread(appId: String, uid: String, conversationId: String?, now: Date) throws -> (removed: Int, total: Int) {
        try withConnection { connection in
            try connection.transaction {
                try Self.lockUnread(connection, appId: appId, uids: [uid])
                let removed =
                    if let conversationId {
                        try connection.query(
                            """
                            UPDATE unread_messages SET read_at = $4
                            WHERE app_id = $1 AND uid = $2 AND conversation_id = $3 AND read_at IS NULL
                            """,
                            [.text(appId), .text(uid), .text(conversationId), .date(now)]
                        ).affected
                    } else {
                        try connection.query(
                            "UPDATE unread_messages SET read_at = $3 WHERE app_id = $1 AND uid = $2 AND read_at IS NULL",
                            [.text(appId), .text(uid), .date(now)]
                        ).affected
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
                try Self.lockUnread(connection, appId: appId, uids: Set(uids))
                var totals: [String: Int] = [:]
                for uid in Set(uids) {
                    let key: [PGValue] = [.text(appId), .text(uid), .text(conversationId), .text(messageId)]
                    let removed = try connection.query(
                        """
                        UPDATE unread_messages SET read_at = $5
                        WHERE app_id = $1 AND uid = $2 AND conversation_id = $3 AND message_id = $4 AND read_at IS NULL
                        """,
                        key + [.date(now)]
                    ).affected
                    if removed > 0 { totals[uid] = try Self.unreadTotal(connection, appId: appId, uid: uid) }
                    try connection.query(
                        """
                        INSERT INTO unread_messages (app_id, uid, conversation_id, message_id, created_at, read_at)
                        SELECT $1, $2, $3, $4, $5, $5 WHERE EXISTS (SELECT 1 FROM users WHERE app_id = $1 AND uid = $2)
                        ON CONFLICT (app_id, uid, conversation_id, message_id) DO NOTHING
                        """,
                        key + [.date(now)])
                }
                return totals
            }
        }
    }

    public func forgetUnreadMessage(appId: String, conversationId: String, messageId: String, uids: [String]) throws {
        try withConnection { connection in
            try connection.transaction {
                try Self.lockUnread(connection, appId: appId, uids: Set(uids))
                for uid in Set(uids) {
                    try connection.query(
                        "DELETE FROM unread_messages WHERE app_id = $1 AND uid = $2 AND conversation_id = $3 AND message_id = $4",
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
                    SELECT conversation_id, COUNT(*) FROM unread_messages WHERE app_id = $1 AND uid = $2 AND read_at IS NULL
                    GROUP BY conversation_id ORDER BY conversation_id
                    """,
                    [.text(appId), .text(uid)]
                ).map { UnreadCounts.Conversation(conversationId: $0.text(0), unread: Int($0.int(1))) })
        }
    }

    /// Takes the advisory locks of these users' unread counts until the transaction ends, in
    /// uid order.
    static func lockUnread(_ connection: PGConnection, appId: String, uids: Set<String>) throws {
        for uid in uids.sorted() {
            try connection.query(
                """
                SELECT pg_advisory_xact_lock(hashtextextended(
                    'push-server unread ' || current_schema() || ' ' || length($1) || ' ' || $1 || ' ' || $2, 0))
                """,
                [.text(appId), .text(uid)])
        }
    }

    /// A user's total: a count over the primary key's prefix.
    private static func unreadTotal(_ connection: PGConnection, appId: String, uid: String) throws -> Int {
        Int(
            try connection.query(
                "SELECT COUNT(*) FROM unread_messages WHERE app_id = $1 AND uid = $2 AND read_at IS NULL", [.text(appId), .text(uid)]
            )
            .first { $0.int(0) } ?? 0)
    }
}
