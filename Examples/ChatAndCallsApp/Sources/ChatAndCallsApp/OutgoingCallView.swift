import SwiftUI

/// A call this app placed. A real app shows its calls SDK's call screen here.
struct OutgoingCallView: View {
    let call: OutgoingCall

    var body: some View {
        VStack(spacing: 16) {
            Text("\(call.isVideo ? "Video" : "Audio") call to \(call.handle)")
            Text("Session \(call.sessionId)")
            Button("Hang up") { OutgoingCalls.shared.hangUp() }
        }
        .padding()
        .navigationTitle("Calling")
    }
}
