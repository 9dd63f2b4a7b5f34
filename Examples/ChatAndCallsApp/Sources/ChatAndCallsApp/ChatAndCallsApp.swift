import SwiftUI

/// A chat and calls app: Core + Chat + Calls, with a Notification Service Extension.
@main
struct ChatAndCallsApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup {
            RootView(push: appDelegate.pushDelegate)
        }
    }
}
