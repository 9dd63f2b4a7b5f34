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

/// Whether the Calls product may use CallKit on this device. CallKit must not be used in
/// China; iOS still kills an app that does not report a VoIP push to CallKit there, so where
/// CallKit is not used the product does not register for VoIP pushes at all and the service
/// sends the user's calls as alert pushes.
#if canImport(ObjectiveC)
@objc(PNCallKitAvailability)
#endif
public enum PNCallKitAvailability: Int, Sendable, CaseIterable, Codable {
    /// The SDK decides from the device's region setting (Settings › General › Language &
    /// Region): CallKit is not used when it is China. The user can change that setting, so an
    /// app distributed in China's App Store should decide itself (from its storefront, for
    /// example `SKStorefront.countryCode == "CHN"`) and pass ``available`` or ``unavailable``.
    case automatic = 0
    /// Use CallKit, whatever the region setting says.
    case available = 1
    /// Never use CallKit: no VoIP registration; calls arrive as notifications.
    case unavailable = 2

    /// The case's name: `"automatic"`, `"available"`, `"unavailable"`.
    public var name: String {
        switch self {
        case .automatic: return "automatic"
        case .available: return "available"
        case .unavailable: return "unavailable"
        }
    }
}
