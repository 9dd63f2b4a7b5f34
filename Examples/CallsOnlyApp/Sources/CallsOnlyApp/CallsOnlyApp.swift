import SwiftUI

/// A calls-only app: Core + Calls. Incoming calls ring on CallKit in every app state; the app
/// joins the call when the user answers.
@main
struct CallsOnlyApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup {
            RootView(calls: appDelegate.callsDelegate)
        }
    }
}
