import Foundation
import CometChatPushNotificationsSwift

/// Sends one client API call with the logged-in user's session (Contract/WIRE-CONTRACT.md §2). In the app
/// this is Core's session; in the Notification Service Extension, the session the app shared
/// through the keychain access group.
public protocol PNChatClient: Sendable {
    /// Sends `method` `path` with the JSON `body` (or none) and classifies the answer.
    func send(_ method: String, _ path: String, json body: [String: Any]?) async -> PNResult<Data>
    /// Whether the client talks to a self-hosted push service (`PNConfiguration.clientHost`):
    /// only then are push ids echoed and the opened call made.
    var isSelfHosted: Bool { get }
}

extension PNChatClient {
    /// CometChat's hosted API, unless the client says otherwise.
    public var isSelfHosted: Bool { false }
}
