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

    /// When the app comes to the foreground; and while nobody is logged in to a linked
    /// CometChat SDK, every two seconds for two minutes after launch and after each return to
    /// the foreground (a login made in the app while it stays active). The CometChat iOS SDK
    /// posts no login notification and has one login delegate, which belongs to the app, so the
    /// SDK does not take it; an app that wants its tokens registered the moment it logs in calls
    /// `refreshSession()` after its login.
    func observeChanges(_ handler: @escaping @Sendable () -> Void) {
        let linked = NSClassFromString(Self.chatClass) != nil || NSClassFromString(Self.callsClass) != nil
        let watch = LoginWatch(check: handler) { [self] in chatSDKSession() != nil || callsSDKSession() != nil }
        // The center keeps a block observer until removed: this one lives as long as the process.
        _ = NotificationCenter.default.addObserver(
            forName: Notification.Name("UIApplicationWillEnterForegroundNotification"), object: nil, queue: .main
        ) { _ in
            handler()
            if linked { watch.start() }
        }
        if linked { DispatchQueue.main.async { watch.start() } }
    }
}

/// A bounded watch for a login: checks every two seconds on the main queue until someone is
/// logged in or two minutes have passed.
private final class LoginWatch: @unchecked Sendable {
    // @unchecked: `timer` and `ticks` are used on the main queue only.
    private let check: @Sendable () -> Void
    private let loggedIn: @Sendable () -> Bool
    private var timer: Timer?
    private var ticks = 0

    init(check: @escaping @Sendable () -> Void, loggedIn: @escaping @Sendable () -> Bool) {
        self.check = check
        self.loggedIn = loggedIn
    }

    /// Starts (or restarts) the watch; on the main queue.
    func start() {
        timer?.invalidate()
        ticks = 0
        guard !loggedIn() else { return }
        timer = Timer.scheduledTimer(withTimeInterval: 2, repeats: true) { [weak self] timer in
            guard let self else { return timer.invalidate() }
            self.ticks += 1
            let found = self.loggedIn()
            if found { self.check() }
            if found || self.ticks >= 60 {
                timer.invalidate()
                self.timer = nil
            }
        }
    }
}
#endif
