import SwiftUI
import CometChatPushNotificationsSwift

/// A conversation. While it is on screen, its notifications are not shown in the foreground.
struct ChatView: View {
    let peer: ChatPeer
    let onClose: () -> Void

    var body: some View {
        VStack(spacing: 16) {
            Text("Messages with \(peer.title) go here.")
            Button("Back to chats") { onClose() }
        }
        .padding()
        .navigationTitle(peer.title)
        .onAppear {
            switch peer {
            case .user(let user): CometChatPushNotifications.shared.setActiveConversation(userId: user.uid)
            case .group(let group): CometChatPushNotifications.shared.setActiveConversation(groupId: group.guid)
            }
        }
        .onDisappear {
            CometChatPushNotifications.shared.clearActiveConversation()
        }
    }
}
