import SwiftUI

/// Where a tapped campaign notification leads. A real app lists its notifications here.
struct NotificationsFeedView: View {
    let onClose: () -> Void

    var body: some View {
        VStack(spacing: 16) {
            Text("Your notifications go here.")
            Button("Back to chats") { onClose() }
        }
        .padding()
        .navigationTitle("Notifications")
    }
}
