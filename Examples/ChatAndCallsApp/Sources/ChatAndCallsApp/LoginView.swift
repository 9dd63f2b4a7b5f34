import Foundation
import SwiftUI
import CometChatPushNotificationsSwift

/// The app's own login: your backend signs the user in and returns a CometChat auth token for
/// them; the SDK then registers this device's tokens for that user. With CometChat's Chat SDK,
/// log in to it instead: the SDK finds that session itself (see ``SignIn``).
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
        SignIn.withOwnLogin(uid: uid, authToken: authToken)
        SignedInUser.uid = uid
        onSignedIn(uid)
    }
}

/// The two ways the SDK learns who is signed in (the TokensAndLogout article).
enum SignIn {
    /// This app's own login, which this example uses: hand the SDK the user and the auth token
    /// your backend created for them. The SDK keeps the token in the keychain and registers this
    /// device's tokens for the user.
    static func withOwnLogin(uid: String, authToken: String) {
        CometChatPushNotifications.shared.setSession(uid: uid, authToken: authToken)
    }

    /// An app that uses CometChat's Chat SDK logs in to it instead and does not call
    /// `setSession`: the SDK reads that login itself (after launch and on each return to the
    /// foreground). This example does not link the Chat SDK, so the login is shown commented:
    ///
    /// ```swift
    /// import CometChatSDK
    ///
    /// CometChat.login(authToken: authToken, onSuccess: { _ in
    ///     SignIn.afterCometChatLogin()
    /// }, onError: { error in
    ///     print("Login failed: \(error.errorDescription)")
    /// })
    /// ```
    ///
    /// At sign-out such an app awaits `unregisterTokens()` (`try await`) and then calls
    /// `CometChat.logout`.
    static func afterCometChatLogin() {
        // Look for the new login now rather than on the SDK's next check: the tokens register at once.
        CometChatPushNotifications.shared.refreshSession()
    }
}
