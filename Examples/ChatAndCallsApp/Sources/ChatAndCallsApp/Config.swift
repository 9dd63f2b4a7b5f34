/// Your CometChat app, its APNs provider (dashboard → Notifications → Settings) and the App
/// Group shared with the Notification Service Extension. Replace the placeholders before running.
enum Config {
    static let appId = "YOUR_APP_ID"
    static let region = "us"
    static let providerId = "YOUR_PROVIDER_ID"
    /// Also in the extension's Info.plist (`CometChatExtensionGroupID`) and both entitlements.
    static let extensionGroupID = "group.com.example.pushdemo"
}
