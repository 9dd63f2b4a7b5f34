import Foundation

/// Picks the session that registers tokens: a linked CometChat SDK per `tokenRegistrar`
/// (`.auto`: the Chat SDK, then the Calls SDK), then the app's own login, then
/// `PNConfiguration.authToken`.
struct SessionResolver: Sendable {
    let bridge: PNSessionBridge

    func resolve(
        registrar: PNTokenRegistrar, appSession: PNSession?, configToken: String?
    ) -> (PNSession, PNSession.Origin)? {
        switch registrar {
        case .auto:
            if let s = bridge.chatSDKSession() { return (s, .chatSDK) }
            if let s = bridge.callsSDKSession() { return (s, .callsSDK) }
        case .chat:
            if let s = bridge.chatSDKSession() { return (s, .chatSDK) }
        case .calls:
            if let s = bridge.callsSDKSession() { return (s, .callsSDK) }
        }
        if let appSession { return (appSession, .app) }
        if let token = configToken?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            return (PNSession(uid: nil, authToken: token), .configuration)
        }
        return nil
    }
}
