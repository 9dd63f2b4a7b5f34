import Foundation
import SwiftUI
import CometChatPushNotificationsSwift

/// The app's own login: your backend signs the user in and returns a CometChat auth token for
/// them; the SDK then registers this device's tokens for that user. (With the CometChat Chat SDK,
/// log in to it instead: the SDK finds that session itself.)
struct LoginView: View {
    let onSignedIn: (String) -> Void

    @State private var uid = ""
    @State private var authToken = ""

    var body: some View {
        VStack(spacing: 12) {
            TextField("User id", text: $uid)
            SecureField("Auth token", text: $authToken)
            Button("Sign in") { signIn() }
                .disabled(uid.isEmpty || authToken.isEmpty)
        }
        .padding()
        .navigationTitle("Sign in")
    }

    private func signIn() {
        let uid = uid.trimmingCharacters(in: .whitespacesAndNewlines)
        CometChatPushNotifications.shared.setSession(uid: uid, authToken: authToken)
        SignedInUser.uid = uid
        onSignedIn(uid)
    }
}
