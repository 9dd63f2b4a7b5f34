#if canImport(ObjectiveC) && canImport(UIKit)
import Foundation

/// Finds a user logged in to CometChat's Chat SDK (`CometChatSDK.CometChat`) or Calls SDK
/// (`CometChatCallsSDK.CometChatCalls`) through the Objective-C runtime, so apps that use
/// those SDKs write no token code. Best effort: an SDK that does not answer the selectors is
/// treated as not logged in, and the app can always use `setSession(uid:authToken:)`.
struct CometChatSDKSessionBridge: PNSessionBridge {
    private static let chatClass = "CometChatSDK.CometChat"
    private static let callsClass = "CometChatCallsSDK.CometChatCalls"

    func chatSDKSession() -> PNSession? { session(of: Self.chatClass) }
    func callsSDKSession() -> PNSession? { session(of: Self.callsClass) }

    private func session(of className: String) -> PNSession? {
        guard let type = NSClassFromString(className) as? NSObject.Type else { return nil }
        let tokenSelector = NSSelectorFromString("getUserAuthToken")
        guard type.responds(to: tokenSelector),
            let token = type.perform(tokenSelector)?.takeUnretainedValue() as? String, !token.isEmpty
        else { return nil }
        var uid: String?
        let userSelector = NSSelectorFromString("getLoggedInUser")
        if type.responds(to: userSelector), let user = type.perform(userSelector)?.takeUnretainedValue() as? NSObject,
            user.responds(to: NSSelectorFromString("uid"))
        {
            uid = user.value(forKey: "uid") as? String
        }
        return PNSession(uid: uid, authToken: token)
    }

    /// When the app becomes active, and every two seconds while a CometChat SDK is linked.
    func observeChanges(_ handler: @escaping @Sendable () -> Void) {
        // The center keeps a block observer until removed: this one lives as long as the process.
        _ = NotificationCenter.default.addObserver(
            forName: Notification.Name("UIApplicationDidBecomeActiveNotification"), object: nil, queue: nil
        ) { _ in handler() }
        guard NSClassFromString(Self.chatClass) != nil || NSClassFromString(Self.callsClass) != nil else { return }
        DispatchQueue.main.async {
            _ = Timer.scheduledTimer(withTimeInterval: 2, repeats: true) { _ in handler() }
        }
    }
}
#endif
