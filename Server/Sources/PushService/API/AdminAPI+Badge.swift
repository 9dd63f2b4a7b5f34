#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

/// The badge the service counts (issue 30): a user's unread messages per conversation, read
/// and reset by the app's back end. A reset sends no push: the user's next push (or read)
/// carries the new total.
extension AdminAPI {
    /// The longest conversation id (`<uid>_user_<uid>` of two 128-character uids is 262).
    static let maxConversationIdLength = 300

    var badgeRoutes: [Route] {
        [
            Route("GET", "users/:uid/badge", .adminApp) { call in
                let user = try existingUser(call)
                return badgeJSON(uid: user.uid, try service.store.unreadCounts(appId: call.appId, uid: user.uid))
            },
            // The conversation the user reads on the web or a desktop (issue 31): their devices wait.
            Route("PUT", "users/:uid/activity", .adminApp) { call in
                let user = try existingUser(call)
                return try ActivityHold.report(call, service: service, appId: call.appId, uid: user.uid, source: UserActivity.backEnd)
            },
            Route("DELETE", "users/:uid/badge", .adminApp) { call in
                let user = try existingUser(call)
                let conversationId = call.request.query["conversationId"]
                if let conversationId {
                    try Validate.identifier(conversationId, field: "conversationId", maxLength: Self.maxConversationIdLength)
                }
                let (removed, total) = try service.store.removeUnread(
                    appId: call.appId, uid: user.uid, conversationId: conversationId, now: service.now)
                service.logger.info("badge reset app=\(call.appId) uid=\(user.uid) removed=\(removed) total=\(total)")
                return badgeJSON(uid: user.uid, try service.store.unreadCounts(appId: call.appId, uid: user.uid))
            },
        ]
    }

    /// `{uid, total, conversations: [{conversationId, unread}]}`.
    func badgeJSON(uid: String, _ counts: UnreadCounts) -> [String: Any] {
        [
            "uid": uid, "total": counts.total,
            "conversations": counts.conversations.map { ["conversationId": $0.conversationId, "unread": $0.unread] as [String: Any] },
        ]
    }
}
