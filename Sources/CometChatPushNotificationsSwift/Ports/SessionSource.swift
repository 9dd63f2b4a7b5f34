import Foundation

/// A logged-in user, as the SDK sees one: who it is and the auth token that authenticates
/// the client API calls. The auth token is a secret: it never reaches logs or diagnostics.
public struct PNSession: Sendable, Equatable {
    /// The user's id, when known (a session from `PNConfiguration.authToken` has none).
    public var uid: String?
    /// The user's auth token.
    public var authToken: String

    /// Creates a session.
    public init(uid: String?, authToken: String) {
        self.uid = uid
        self.authToken = authToken
    }

    /// Which SDK the session comes from.
    public enum Origin: String, Sendable {
        /// The CometChat Chat SDK, found at run time.
        case chatSDK
        /// The CometChat Calls SDK, found at run time.
        case callsSDK
        /// The app, through `setSession(uid:authToken:)`.
        case app
        /// `PNConfiguration.authToken`.
        case configuration
    }
}

/// Finds a user logged in to a CometChat SDK linked into the app. On Apple platforms a bridge
/// asks the Chat and Calls SDKs through the Objective-C runtime; elsewhere there is none.
public protocol PNSessionBridge: Sendable {
    /// The session of the Chat SDK, if it is linked and someone is logged in.
    func chatSDKSession() -> PNSession?
    /// The session of the Calls SDK, if it is linked and someone is logged in.
    func callsSDKSession() -> PNSession?
    /// Calls `handler` whenever a login or logout may have happened: the app came to the
    /// foreground, or (for a short while after launch and after each return to the foreground,
    /// while nobody is logged in) a CometChat SDK may have logged in. Called once, from
    /// `initialize`.
    func observeChanges(_ handler: @escaping @Sendable () -> Void)
}

extension PNSessionBridge {
    /// Observes nothing.
    public func observeChanges(_ handler: @escaping @Sendable () -> Void) {}
}

/// A bridge that never finds an SDK.
public struct PNNoSessionBridge: PNSessionBridge {
    /// Creates the bridge.
    public init() {}
    /// Always `nil`.
    public func chatSDKSession() -> PNSession? { nil }
    /// Always `nil`.
    public func callsSDKSession() -> PNSession? { nil }
}
