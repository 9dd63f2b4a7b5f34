import SwiftUI

/// A calls-only app: Core + Calls. Incoming calls ring on CallKit in every app state; the app
/// joins the call when the user answers.
@main
struct CallsOnlyApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup {
            RootView(calls: appDelegate.callsDelegate)
                // A call tapped in Recents: SwiftUI delivers the activity here, not to the app
                // delegate's application(_:continue:restorationHandler:).
                .onContinueUserActivity(OutgoingCalls.recentsActivityType) { activity in
                    _ = OutgoingCalls.shared.callBack(from: activity)
                }
        }
    }
}
