import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// One client call the Chat product makes.
struct ChatRequest: @unchecked Sendable, Equatable {
    // @unchecked: `json` holds JSON values (strings and a nested dictionary of strings) only.
    var method: String
    var path: String
    var json: [String: Any]?

    static func == (lhs: ChatRequest, rhs: ChatRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path
            && NSDictionary(dictionary: lhs.json ?? [:]).isEqual(to: rhs.json ?? [:])
    }
}

/// The Chat product's calls of Contract/WIRE-CONTRACT.md §2, built from a parsed push.
enum ChatRequests {
    /// `POST /users/{sender}/conversation/delivered` for a one-to-one message,
    /// `POST /groups/{guid}/conversation/delivered` for a group message; `nil` when the push
    /// lacks the message id or the conversation. With `deliveredBy` (`app` or `extension`: only
    /// against a self-hosted service) the body also carries the push's `pushId` and who saw it.
    static func delivered(_ info: CometChatNotificationInfo, deliveredBy: String? = nil) -> ChatRequest? {
        guard info.kind == .chat, let messageId = info.messageId else { return nil }
        let path: String
        switch info.receiverType {
        case .group:
            guard let guid = info.receiverId else { return nil }
            path = "/groups/\(PNPercentEncoding.pathSegment(guid))/conversation/delivered"
        case .user, .unknown:
            guard let uid = info.senderUid else { return nil }
            path = "/users/\(PNPercentEncoding.pathSegment(uid))/conversation/delivered"
        }
        var body: [String: Any] = ["messageId": messageId]
        if let deliveredBy, let pushId = info.pushId {
            body["pushId"] = pushId
            body["deliveredBy"] = deliveredBy
        }
        return ChatRequest(method: "POST", path: path, json: body)
    }

    /// `POST /notifications/push/v1/pushes/{pushId}/opened` (self-hosted services only); `nil`
    /// when the push has no push id.
    static func opened(_ info: CometChatNotificationInfo) -> ChatRequest? {
        guard let pushId = info.pushId else { return nil }
        let path = "/notifications/push/v1/pushes/\(PNPercentEncoding.pathSegment(pushId))/opened"
        return ChatRequest(method: "POST", path: path, json: nil)
    }

    /// The quick reply: a text message to the push's sender (one-to-one) or group, in the
    /// thread of `parentId` when the push was a thread reply. With `echoPushId` (a self-hosted
    /// service) the body carries the push's `pushId`.
    static func reply(_ text: String, to info: CometChatNotificationInfo, echoPushId: Bool = false) -> ChatRequest? {
        guard let target = ReplyTarget(info) else { return nil }
        var body: [String: Any] = [
            "receiver": target.receiver, "receiverType": target.receiverType,
            "category": "message", "type": "text", "data": ["text": text],
        ]
        if echoPushId, let pushId = info.pushId { body["pushId"] = pushId }
        let path = target.parentId.map { "/messages/\(PNPercentEncoding.pathSegment($0))/thread" } ?? "/messages"
        return ChatRequest(method: "POST", path: path, json: body)
    }

    /// `PUT /campaigns/push-notifications/{id}/delivered` or `…/clicked`.
    static func campaign(_ info: CometChatNotificationInfo, clicked: Bool) -> ChatRequest? {
        guard info.kind == .campaign, let id = campaignReceiptId(info) else { return nil }
        let path = "/campaigns/push-notifications/\(PNPercentEncoding.pathSegment(id))/\(clicked ? "clicked" : "delivered")"
        return ChatRequest(method: "PUT", path: path, json: nil)
    }

    /// The id a campaign receipt names: the announcement (push) id, else the campaign id.
    static func campaignReceiptId(_ info: CometChatNotificationInfo) -> String? {
        info.announcementId ?? info.campaignId
    }
}

extension PNRetryPolicy {
    /// A Chat product call (a receipt, a quick reply) after no answer or a 5xx: 1 s, doubling up
    /// to 8 s, for as long as the next attempt can start before the call's deadline.
    static let chatRequest = PNRetryPolicy(firstDelay: 1, maxDelay: 8)
}

/// Where a quick reply goes.
struct ReplyTarget: Equatable, Sendable {
    var receiver: String
    var receiverType: String
    var parentId: String?

    /// `nil` when the push names no sender (one-to-one) or no group.
    init?(_ info: CometChatNotificationInfo) {
        switch info.receiverType {
        case .group:
            guard let guid = info.receiverId else { return nil }
            receiver = guid
            receiverType = "group"
        case .user, .unknown:
            guard let uid = info.senderUid else { return nil }
            receiver = uid
            receiverType = "user"
        }
        parentId = info.parentId
    }
}
