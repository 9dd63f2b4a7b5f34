import Foundation

/// Whose session registers the push tokens.
#if canImport(ObjectiveC)
@objc(PNTokenRegistrar)
#endif
public enum PNTokenRegistrar: Int, Sendable, CaseIterable, Codable {
    /// The Chat SDK if someone is logged in to it, then the Calls SDK.
    case auto = 0
    /// Only the Chat SDK's session.
    case chat = 1
    /// Only the Calls SDK's session.
    case calls = 2

    /// The case's name: `"auto"`, `"chat"`, `"calls"`.
    public var name: String {
        switch self {
        case .auto: return "auto"
        case .chat: return "chat"
        case .calls: return "calls"
        }
    }
}

/// Who owns the app's `PKPushRegistry`.
#if canImport(ObjectiveC)
@objc(PNPushKitOwnership)
#endif
public enum PNPushKitOwnership: Int, Sendable, CaseIterable, Codable {
    /// The Calls product creates the registry in `initialize` and handles VoIP pushes itself.
    case sdk = 0
    /// The app owns the registry and forwards the VoIP token and pushes to the Calls product.
    case app = 1

    /// The case's name: `"sdk"`, `"app"`.
    public var name: String {
        switch self {
        case .sdk: return "sdk"
        case .app: return "app"
        }
    }
}
