import Foundation

/// How a notification that arrives in the foreground is presented
/// (`UNNotificationPresentationOptions` on iOS). Empty hides it.
public struct PNPresentationOptions: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Creates options from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Applies the payload's badge to the app icon.
    public static let badge = PNPresentationOptions(rawValue: 1 << 0)
    /// Plays the notification's sound.
    public static let sound = PNPresentationOptions(rawValue: 1 << 1)
    /// Shows it in Notification Center.
    public static let list = PNPresentationOptions(rawValue: 1 << 2)
    /// Shows it as a banner.
    public static let banner = PNPresentationOptions(rawValue: 1 << 3)

    /// Banner, Notification Center and sound: how a chat notification is shown.
    public static let alert: PNPresentationOptions = [.banner, .list, .sound]

    /// Names of the options set, for logs and test output: `["banner", "list", "sound"]`.
    public var names: [String] {
        [(PNPresentationOptions.banner, "banner"), (.list, "list"), (.sound, "sound"), (.badge, "badge")]
            .filter { contains($0.0) }
            .map(\.1)
    }
}
