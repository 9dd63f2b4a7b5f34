import Foundation

/// A notification category: the actions shown with notifications sent with its identifier
/// (`UNNotificationCategory` on iOS).
public struct PNNotificationCategory: Sendable, Hashable {
    /// The identifier pushes name in `aps.category`.
    public var identifier: String
    /// The actions, in display order.
    public var actions: [PNNotificationAction]
    /// Whether dismissing a notification of this category is reported to the delegate.
    public var reportsDismiss: Bool

    /// Creates a category.
    public init(identifier: String, actions: [PNNotificationAction], reportsDismiss: Bool = false) {
        self.identifier = identifier
        self.actions = actions
        self.reportsDismiss = reportsDismiss
    }
}

/// A button of a notification category (`UNNotificationAction` / `UNTextInputNotificationAction`).
public struct PNNotificationAction: Sendable, Hashable {
    /// How the action behaves.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int
        /// Creates options from bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The device must be unlocked.
        public static let authenticationRequired = Options(rawValue: 1 << 0)
        /// Shown as destructive.
        public static let destructive = Options(rawValue: 1 << 1)
        /// Opens the app.
        public static let foreground = Options(rawValue: 1 << 2)
    }

    /// What the action asks of the user.
    public enum Kind: Sendable, Hashable {
        /// A plain button.
        case button
        /// A text field with a send button.
        case textInput(buttonTitle: String, placeholder: String)
    }

    /// The identifier reported in the response.
    public var identifier: String
    /// The button's title.
    public var title: String
    /// Button or text input.
    public var kind: Kind
    /// Behaviour flags.
    public var options: Options

    /// Creates an action.
    public init(identifier: String, title: String, kind: Kind = .button, options: Options = []) {
        self.identifier = identifier
        self.title = title
        self.kind = kind
        self.options = options
    }
}

/// A local notification shown at once (`UNNotificationRequest` without a trigger), such as
/// "your reply was not sent".
public struct PNLocalNotificationRequest: Sendable, Equatable {
    /// The request's identifier; a new request with the same identifier replaces it.
    public var identifier: String
    /// The title.
    public var title: String
    /// The body.
    public var body: String
    /// Groups it with other notifications of a conversation (`thread-id`).
    public var threadIdentifier: String?
    /// The category, for its actions.
    public var categoryIdentifier: String?
    /// Extra payload keys.
    public var userInfo: [String: String]
    /// Whether it plays the default sound (`content.sound`).
    public var playsSound: Bool
    /// How it interrupts the user (`content.interruptionLevel`).
    public var interruptionLevel: PNInterruptionLevel

    /// Creates a request. By default it plays the default sound and is `active`, as a push is.
    public init(
        identifier: String, title: String, body: String, threadIdentifier: String? = nil,
        categoryIdentifier: String? = nil, userInfo: [String: String] = [:], playsSound: Bool = true,
        interruptionLevel: PNInterruptionLevel = .active
    ) {
        self.identifier = identifier
        self.title = title
        self.body = body
        self.threadIdentifier = threadIdentifier
        self.categoryIdentifier = categoryIdentifier
        self.userInfo = userInfo
        self.playsSound = playsSound
        self.interruptionLevel = interruptionLevel
    }
}

/// How a notification interrupts the user (`UNNotificationInterruptionLevel`, a push's
/// `aps.interruption-level`).
public enum PNInterruptionLevel: String, Sendable, Equatable, CaseIterable {
    /// Into Notification Center only: no sound, the screen stays dark.
    case passive
    /// Presented at once, with its sound; lights the screen.
    case active
    /// As `active`, and through a Focus that allows time-sensitive notifications.
    case timeSensitive = "time-sensitive"
}
