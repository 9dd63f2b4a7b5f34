import SwiftUI
import CometChatPushNotificationsSwift

/// The signed-in user, the ring readiness check and sign-out.
struct HomeView: View {
    let uid: String
    let onSignedOut: () -> Void

    @State private var signingOut = false

    var body: some View {
        List {
            Text("Signed in as \(uid)")
            Button("Call Alice") { OutgoingCalls.shared.place(to: "alice", video: false) }
            RingReadinessView()
            Button(signingOut ? "Signing out…" : "Sign out") { signOut() }
                .disabled(signingOut)
        }
        .navigationTitle("Calls")
    }

    private func signOut() {
        signingOut = true
        Task {
            // Awaited: the VoIP token is unregistered with this user's session before it ends,
            // so no call for this user rings here after sign-out.
            do {
                try await CometChatPushNotifications.shared.clearSessionAndWait()
            } catch {
                print("Sign-out: tokens not unregistered: \(error)")
            }
            SignedInUser.uid = nil
            signingOut = false
            onSignedOut()
        }
    }
}
