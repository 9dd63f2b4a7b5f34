import Foundation
import CometChatPushNotificationsSwift

/// A group conversation, as a chat push names it: the message's receiver. Passed to
/// `navigateToChat(for:)` in place of the CometChat Chat SDK's `Group`.
#if canImport(ObjectiveC)
@objc(PNGroup) @objcMembers
#endif
public final class PNGroup: NSObject, Sendable {
    /// The group's guid.
    public let guid: String
    /// The group's name, if the push carried one.
    public let name: String?
    /// The group's icon URL, as text, if the push carried one.
    public let icon: String?

    /// Creates a group.
    public init(guid: String, name: String?, icon: String?) {
        self.guid = guid
        self.name = name
        self.icon = icon
    }

    /// The group of a group chat push, or `nil` for one-to-one pushes and pushes without a guid.
    public convenience init?(notification info: CometChatNotificationInfo) {
        guard info.kind == .chat, info.receiverType == .group, let guid = info.receiverId else { return nil }
        self.init(guid: guid, name: info.receiverName, icon: info.receiverAvatar)
    }

    /// Equal when the guids, names and icons are.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? PNGroup else { return false }
        return guid == other.guid && name == other.name && icon == other.icon
    }

    /// Hashes the guid.
    public override var hash: Int { guid.hashValue }

    /// `PNGroup(guid: …)`.
    public override var description: String { "PNGroup(guid: \(guid))" }
}
