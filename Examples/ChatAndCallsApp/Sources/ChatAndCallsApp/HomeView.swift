import SwiftUI
import CometChatPushNotificationsSwift
import CometChatPushNotificationsChat

/// Conversations, the notifications feed, ring readiness and sign-out.
struct HomeView: View {
    let uid: String
    let onOpen: (Destination) -> Void
    let onSignedOut: () -> Void

    @State private var signingOut = false

    var body: some View {
        List {
            Text("Signed in as \(uid)")
            Button("Chat with Alice") { onOpen(.chat(.user(PNUser(uid: "alice", name: "Alice", avatar: nil)))) }
            Button("Group: Team") { onOpen(.chat(.group(PNGroup(guid: "team", name: "Team", icon: nil)))) }
            Button("Notifications") { onOpen(.notificationsFeed) }
            Button("Call Alice") { OutgoingCalls.shared.place(to: "alice", video: false) }
            RingReadinessView()
            Button(signingOut ? "Signing out…" : "Sign out") { signOut() }
                .disabled(signingOut)
        }
        .navigationTitle("Chats")
    }

    private func signOut() {
        signingOut = true
        Task {
            let sdk = CometChatPushNotifications.shared
            // Unregister first, and wait: the request is authenticated with this user's session,
            // so it has to finish before the session ends, or pushes keep arriving after sign-out.
            do {
                try await sdk.unregisterTokens()
            } catch {
                print("Sign-out: tokens not unregistered: \(error)")
            }
            // Then end the session. An app using the CometChat Chat and Calls SDKs logs out of them
            // here instead (CometChat.logout, CometChatCalls.logout).
            try? await sdk.clearSessionAndWait()
            SignedInUser.uid = nil
            signingOut = false
            onSignedOut()
        }
    }
}
