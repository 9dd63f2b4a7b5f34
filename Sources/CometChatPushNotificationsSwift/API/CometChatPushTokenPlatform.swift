import Foundation

/// The kind of push token.
#if canImport(ObjectiveC)
@objc(CometChatPushTokenPlatform)
#endif
public enum CometChatPushTokenPlatform: Int, Sendable, CaseIterable {
    /// The APNs device token, from `registerDeviceToken(_:)`.
    case apns = 0
    /// A Firebase registration token, from `registerFCMToken(_:)`.
    case fcm = 1
    /// The PushKit VoIP token, registered by the Calls product.
    case voip = 2

    /// The case's name, for logs: `"apns"`, `"fcm"`, `"voip"`.
    public var rawName: String {
        switch self {
        case .apns: return "apns"
        case .fcm: return "fcm"
        case .voip: return "voip"
        }
    }

    /// The `platform` value the client API expects: `apns_ios_device`, `fcm_ios`, `apns_ios_voip`.
    public var wireValue: String {
        switch self {
        case .apns: return "apns_ios_device"
        case .fcm: return "fcm_ios"
        case .voip: return "apns_ios_voip"
        }
    }

    /// The platform for a wire value, or `nil`.
    public init?(wireValue: String) {
        guard let match = Self.allCases.first(where: { $0.wireValue == wireValue }) else { return nil }
        self = match
    }
}
