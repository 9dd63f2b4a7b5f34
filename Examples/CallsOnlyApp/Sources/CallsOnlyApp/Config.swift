/// Your CometChat app and its APNs provider (dashboard → Notifications → Settings).
/// Replace the placeholders before running on a device.
enum Config {
    static let appId = "YOUR_APP_ID"
    static let region = "us"
    static let providerId = "YOUR_PROVIDER_ID"
}
