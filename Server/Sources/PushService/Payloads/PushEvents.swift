#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A person or group named in a push: `uid`/`guid`, display name, avatar or icon URL.
struct Party: Sendable, Hashable {
    var id: String
    var name: String
    var avatar: String?

    var json: [String: Any] {
        var value: [String: Any] = ["id": id, "name": name]
        if let avatar { value["avatar"] = avatar }
        return value
    }

    static func parse(_ object: JSONObject, idKeys: [String]) throws(APIError) -> Party {
        var id: String?
        for key in idKeys where id == nil {
            id = try object.optionalString(key, maxLength: 128)
        }
        guard let id else {
            throw .badRequest(
                "The \(object.path).\(idKeys[0]) field is required.", field: "\(object.path).\(idKeys[0])", problem: "missing")
        }
        try Validate.identifier(id, field: "\(object.path).\(idKeys[0])")
        let name = try object.optionalString("name", maxLength: 256) ?? id
        let icon = try object.optionalString("icon", maxLength: 2_048)
        let avatar = try object.optionalString("avatar", maxLength: 2_048) ?? icon
        return Party(id: id, name: name, avatar: avatar)
    }
}

/// A chat message, reaction or group action to push (`type: "chat"`).
struct ChatEvent {
    enum Category: String {
        case message, reaction, action
    }

    var id: String
    var category: Category
    var sender: Party
    var receiver: Party
    var receiverType: String
    var text: String
    var title: String?
    var sentAt: Int64
    var parentId: String?
    var reaction: String?
    var custom: Any?
    var message: Any?
    /// The uids the message mentions (`message.mentions`): group members who chose "mentions
    /// only" get a push only when named here.
    var mentions: Set<String> = []
    /// `message.action`: an edit or a deletion of the message `id` sent before; nil for a new
    /// message.
    var action: Action?
}

/// A call event to push (`type: "call"`).
struct CallEvent {
    static let actions = ["initiated", "ongoing", "unanswered", "rejected", "busy", "cancelled", "ended"]

    var sessionId: String
    var callAction: String
    var callType: String
    var sender: Party
    var receiver: Party
    var receiverType: String
    var sentAt: Int64
}

/// A campaign (engagement) push (`source: "campaign"`).
struct CampaignEvent {
    var id: String
    var campaignId: String
    var title: String
    var body: String
    var url: String?
    var imageUrl: String?
    var sentAt: Int64
    var custom: Any?
}
