#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

/// `GET /notifications/push/v1/changes` (Contract/WIRE-CONTRACT.md §2): the edits, deletions and
/// reads of the session user's conversations after a cursor, oldest first, paged. The SDK asks
/// at launch and on each return to the foreground: background pushes may be delayed, coalesced
/// or never delivered (a force-quit app), this feed is the guarantee.
struct ChangesAPI {
    let service: ServiceContext

    /// Changes per page when the client gives no `limit`.
    static let defaultLimit = 200
    /// The largest `limit`.
    static let maxLimit = 500

    var clientRoutes: [Route] {
        [Route("GET", "notifications/push/v1/changes", .client) { try changes($0) }]
    }

    /// `{changes, cursor, hasMore, truncated?}`. Without `since`: no changes and the cursor of
    /// now. A cursor is a position in the store's feed, as text; one beyond every position the
    /// store gave (another database's) starts over at now, `truncated`.
    func changes(_ call: Call) throws -> Any {
        guard let session = call.session else { throw APIError.authTokenNotFound }
        let limit = try Self.limit(call.request.query["limit"])
        guard let sinceText = call.request.query["since"] else {
            return Self.answer([], cursor: try service.store.latestChangePosition(), hasMore: false, truncated: false)
        }
        let since = try Self.cursor(sinceText)
        let page = try service.store.changes(appId: session.appId, uid: session.uid, after: since, limit: limit)
        guard since <= page.latest else {
            return Self.answer([], cursor: try service.store.latestChangePosition(), hasMore: false, truncated: true)
        }
        return Self.answer(
            page.entries.map(\.change), cursor: page.entries.last?.position ?? since, hasMore: page.hasMore,
            truncated: since < page.purgedThrough)
    }

    /// `limit`: 1 to 500, default 200.
    static func limit(_ text: String?) throws(APIError) -> Int {
        guard let text else { return defaultLimit }
        guard let value = Int(text), (1...maxLimit).contains(value), text.allSatisfy(\.isASCII) else {
            throw .badRequest("The limit parameter must be an integer from 1 to \(maxLimit).", field: "limit", problem: "out of range")
        }
        return value
    }

    /// `since`: a cursor this route gave (digits).
    static func cursor(_ text: String) throws(APIError) -> Int64 {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int64(text) else {
            throw .badRequest(
                "The since parameter must be a cursor this route gave (or absent, for the cursor of now).", field: "since",
                problem: "not a cursor")
        }
        return value
    }

    static func answer(_ changes: [PushChange], cursor: Int64, hasMore: Bool, truncated: Bool) -> [String: Any] {
        var answer: [String: Any] = ["changes": changes.map(json), "cursor": String(cursor), "hasMore": hasMore]
        if truncated { answer["truncated"] = true }
        return answer
    }

    /// One change as the contract writes it: `kind`, `conversationId`, `at` (ms); edits and
    /// deletions `messageId` and `notificationId`; edits `title` and `body`; reads `unreadCount`
    /// when the reader gave one.
    static func json(_ change: PushChange) -> [String: Any] {
        var value: [String: Any] = [
            "kind": change.kind.rawValue, "conversationId": change.conversationId, "at": PushTrace.milliseconds(change.at),
        ]
        if let messageId = change.messageId { value["messageId"] = messageId }
        if let notificationId = change.notificationId { value["notificationId"] = notificationId }
        if let title = change.title { value["title"] = title }
        if let body = change.body { value["body"] = body }
        if let unreadCount = change.unreadCount { value["unreadCount"] = unreadCount }
        return value
    }
}
