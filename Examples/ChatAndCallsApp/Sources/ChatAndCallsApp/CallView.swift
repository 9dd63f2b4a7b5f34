import SwiftUI
import CometChatPushNotificationsCalls

/// The answered call. A real app shows its calls SDK's call screen here.
struct CallView: View {
    let call: IncomingCall

    var body: some View {
        VStack(spacing: 16) {
            Text("\(call.isVideo ? "Video" : "Audio") call with \(call.callerName)")
            Text("Session \(call.sessionId)")
            Button("Hang up") {
                // CallKit is told; callDidEnd(_:reason:) follows and closes this screen.
                CometChatPushNotificationsCalls.reportCallEnded(sessionId: call.sessionId, reason: .localEnded)
            }
        }
        .padding()
        .navigationTitle("Call")
    }
}
