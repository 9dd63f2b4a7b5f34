import SwiftUI

/// A chat and calls app: Core + Chat + Calls, with a Notification Service Extension.
@main
struct ChatAndCallsApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup {
            RootView(push: appDelegate.pushDelegate)
                // A call tapped in Recents: SwiftUI delivers the activity here, not to the app
                // delegate's application(_:continue:restorationHandler:).
                .onContinueUserActivity(OutgoingCalls.recentsActivityType) { activity in
                    _ = OutgoingCalls.shared.callBack(from: activity)
                }
        }
    }
}
