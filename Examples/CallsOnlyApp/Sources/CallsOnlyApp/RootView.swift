import SwiftUI
import CometChatPushNotificationsCalls

/// Sign-in, home, the answered call or the call placed.
struct RootView: View {
    let calls: CallsDelegate

    @ObservedObject private var outgoing = OutgoingCalls.shared

    @State private var uid: String? = SignedInUser.uid
    @State private var activeCall: IncomingCall?

    var body: some View {
        NavigationView {
            if let call = activeCall {
                CallView(call: call)
            } else if let call = outgoing.current {
                OutgoingCallView(call: call)
            } else if let uid {
                HomeView(uid: uid, onSignedOut: { self.uid = nil })
            } else {
                LoginView(onSignedIn: { uid = $0 })
            }
        }
        .onAppear {
            // A call answered before this screen existed is waiting in the delegate.
            activeCall = calls.activeCall
            calls.onActiveCallChange = { activeCall = $0 }
        }
    }
}
