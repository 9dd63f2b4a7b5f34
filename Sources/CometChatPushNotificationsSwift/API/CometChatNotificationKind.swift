import Foundation

/// What a push is about.
#if canImport(ObjectiveC)
@objc(PNNotificationKind)
#endif
public enum CometChatNotificationKind: Int, Sendable, CaseIterable {
    /// Not a CometChat push (the app's own, or one the SDK does not recognise).
    case other = 0
    /// A chat message, reaction or group action (`type: "chat"`).
    case chat = 1
    /// A call (`type: "call"`).
    case call = 2
    /// A campaign (engagement) push sent from the dashboard (`source: "campaign"`).
    case campaign = 3

    /// The case's name, for logs: `"chat"`.
    public var name: String {
        switch self {
        case .other: return "other"
        case .chat: return "chat"
        case .call: return "call"
        case .campaign: return "campaign"
        }
    }
}

/// Whether a push's receiver is a user (a one-to-one conversation) or a group.
#if canImport(ObjectiveC)
@objc(PNReceiverType)
#endif
public enum CometChatReceiverType: Int, Sendable, CaseIterable {
    /// The payload does not say.
    case unknown = 0
    /// A one-to-one conversation: the receiver is the logged-in user.
    case user = 1
    /// A group conversation: the receiver is the group.
    case group = 2

    /// The case's name, for logs: `"user"`.
    public var name: String {
        switch self {
        case .unknown: return "unknown"
        case .user: return "user"
        case .group: return "group"
        }
    }
}
