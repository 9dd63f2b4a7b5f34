/// The kind of a registered push token, with the wire values of Contract/WIRE-CONTRACT.md §2.
public enum TokenPlatform: String, Sendable, Codable, CaseIterable, Hashable {
    /// An APNs device token (lowercase hex) for alert and background pushes.
    case apnsDevice = "apns_ios_device"
    /// A PushKit VoIP token (lowercase hex); APNs topic is the bundle id + `.voip`.
    case apnsVoIP = "apns_ios_voip"
    /// A Firebase registration token; delivered through FCM HTTP v1.
    case fcm = "fcm_ios"

    /// Whether the token is delivered through APNs directly (as opposed to FCM).
    public var isAPNs: Bool { self != .fcm }
}

/// The APNs environment a device token belongs to: the `aps-environment` of the app's
/// provisioning profile (development builds get sandbox tokens, App Store and TestFlight
/// builds production ones). A token only works in its own environment.
public enum TokenEnvironment: String, Sendable, Codable, CaseIterable, Hashable {
    /// `api.sandbox.push.apple.com` (development signing).
    case sandbox
    /// `api.push.apple.com` (distribution signing).
    case production

    /// The other environment.
    public var other: TokenEnvironment { self == .sandbox ? .production : .sandbox }
}
