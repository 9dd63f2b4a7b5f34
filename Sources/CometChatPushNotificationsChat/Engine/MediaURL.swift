import Foundation
import CometChatPushNotificationsSwift

/// Finds the attachment a push asks for: the sender's avatar for chat messages, the image of a
/// campaign push. Only `http` and `https` URLs are used.
enum MediaURL {
    /// Keys a campaign push may carry its image under (inferred; kept tolerant).
    static let campaignImageKeys = ["image", "imageUrl", "imageURL", "mediaUrl", "mediaURL", "attachment-url", "attachmentUrl"]

    static func find(in payload: [AnyHashable: Any], info: CometChatNotificationInfo) -> URL? {
        switch info.kind {
        case .chat:
            return info.senderAvatar.flatMap(web)
        case .campaign:
            let nested = payload["payload"] as? [String: Any]
            for key in campaignImageKeys {
                if let url = (payload[key] as? String).flatMap(web) ?? (nested?[key] as? String).flatMap(web) {
                    return url
                }
            }
            return nil
        case .call, .other:
            return nil
        }
    }

    private static func web(_ text: String) -> URL? {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)),
            let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil
        else { return nil }
        return url
    }
}
