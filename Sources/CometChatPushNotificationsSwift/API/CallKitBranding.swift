import Foundation

/// How CallKit presents the app's incoming calls.
#if canImport(ObjectiveC)
@objc(PNCallKitBranding) @objcMembers
#endif
public final class CallKitBranding: NSObject, Sendable, Codable {
    /// The name CallKit shows for the app. Since iOS 14 CallKit takes no name from the app: it
    /// shows the app's display name (`CFBundleDisplayName`) whatever this says, and the SDK, which
    /// supports iOS 15.1 and later, logs a warning when it is set to anything else. Set the
    /// display name in the app target instead.
    public let name: String?
    /// An image in the app's asset catalog, drawn as a template on the call screen.
    public let iconTemplateImageName: String?
    /// A sound file in the app bundle to ring with; `nil` uses the system ringtone.
    public let ringtone: String?
    /// Whether calls appear in the Phone app's Recents.
    public let includeInRecents: Bool
    /// Whether the app supports video calls.
    public let supportsVideo: Bool

    /// Creates the branding. Every value has a default.
    public init(
        name: String? = nil,
        iconTemplateImageName: String? = nil,
        ringtone: String? = nil,
        includeInRecents: Bool = true,
        supportsVideo: Bool = true
    ) {
        self.name = name
        self.iconTemplateImageName = iconTemplateImageName
        self.ringtone = ringtone
        self.includeInRecents = includeInRecents
        self.supportsVideo = supportsVideo
    }

    /// Equal when every value is.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CallKitBranding else { return false }
        return name == other.name && iconTemplateImageName == other.iconTemplateImageName
            && ringtone == other.ringtone && includeInRecents == other.includeInRecents
            && supportsVideo == other.supportsVideo
    }

    /// Hash of the name.
    public override var hash: Int { name?.hashValue ?? 0 }
}
