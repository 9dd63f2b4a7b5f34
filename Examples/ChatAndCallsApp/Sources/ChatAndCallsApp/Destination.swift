import CometChatPushNotificationsChat

/// The conversation a chat screen shows.
enum ChatPeer {
    case user(PNUser)
    case group(PNGroup)

    var title: String {
        switch self {
        case .user(let user): return user.name ?? user.uid
        case .group(let group): return group.name ?? group.guid
        }
    }
}

/// Where a tapped notification, or the home screen, leads.
enum Destination {
    case chat(ChatPeer)
    case notificationsFeed
}
