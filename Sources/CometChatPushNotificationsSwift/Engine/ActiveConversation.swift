import Foundation

/// The conversation on screen, set with `setActiveConversation(userId:)` or
/// `setActiveConversation(groupId:)`: its notifications are not shown in the foreground.
@_spi(PNProducts)
public enum PNActiveConversation: Sendable, Equatable {
    /// A one-to-one conversation with this user.
    case user(String)
    /// A group conversation.
    case group(String)

    /// Whether `info` belongs to this conversation: a user conversation matches the push's
    /// sender (in a one-to-one push the receiver is the logged-in user), a group conversation
    /// matches the push's receiver.
    public func matches(_ info: CometChatNotificationInfo) -> Bool {
        switch self {
        case .user(let uid):
            return info.receiverType != .group && info.senderUid == uid
        case .group(let guid):
            return info.receiverType == .group && info.receiverId == guid
        }
    }
}
