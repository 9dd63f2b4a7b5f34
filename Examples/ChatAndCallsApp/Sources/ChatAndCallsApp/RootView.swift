import SwiftUI
import CometChatPushNotificationsCalls

/// Sign-in, home, the destination of a tap, the answered call or the call placed.
struct RootView: View {
    let push: PushDelegate

    @ObservedObject private var outgoing = OutgoingCalls.shared

    @State private var uid: String? = SignedInUser.uid
    @State private var destination: Destination?
    @State private var activeCall: IncomingCall?

    var body: some View {
        NavigationView {
            if let call = activeCall {
                CallView(call: call)
            } else if let call = outgoing.current {
                OutgoingCallView(call: call)
            } else if uid == nil {
                LoginView(onSignedIn: { uid = $0 })
            } else if let destination {
                DestinationView(destination: destination, onClose: { self.destination = nil })
            } else {
                HomeView(uid: uid ?? "", onOpen: { destination = $0 }, onSignedOut: { uid = nil })
            }
        }
        .onAppear {
            // What arrived before this screen existed (a tap that launched the app, a call
            // answered from the lock screen) is waiting in the delegate.
            activeCall = push.activeCall
            push.onActiveCallChange = { activeCall = $0 }
            push.onOpen = { destination = $0 }
        }
    }
}

/// A chat or the notifications feed.
struct DestinationView: View {
    let destination: Destination
    let onClose: () -> Void

    var body: some View {
        switch destination {
        case .chat(let peer):
            ChatView(peer: peer, onClose: onClose)
        case .notificationsFeed:
            NotificationsFeedView(onClose: onClose)
        }
    }
}
