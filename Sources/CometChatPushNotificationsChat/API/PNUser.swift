import Foundation
import CometChatPushNotificationsSwift

/// The other user of a one-to-one conversation, as a chat push names them: the message's
/// sender. Passed to `navigateToChat(for:)` in place of the CometChat Chat SDK's `User`, so
/// the product needs no Chat SDK.
#if canImport(ObjectiveC)
@objc(PNUser) @objcMembers
#endif
public final class PNUser: NSObject, Sendable {
    /// The user's uid.
    public let uid: String
    /// The display name, if the push carried one.
    public let name: String?
    /// The avatar URL, as text, if the push carried one.
    public let avatar: String?

    /// Creates a user.
    public init(uid: String, name: String?, avatar: String?) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
    }

    /// The sender of a one-to-one chat push, or `nil` for group pushes and pushes without a sender.
    public convenience init?(notification info: CometChatNotificationInfo) {
        guard info.kind == .chat, info.receiverType != .group, let uid = info.senderUid else { return nil }
        self.init(uid: uid, name: info.senderName, avatar: info.senderAvatar)
    }

    /// Equal when the uids, names and avatars are.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? PNUser else { return false }
        return uid == other.uid && name == other.name && avatar == other.avatar
    }

    /// Hashes the uid.
    public override var hash: Int { uid.hashValue }

    /// `PNUser(uid: …)`.
    public override var description: String { "PNUser(uid: \(uid))" }
}
