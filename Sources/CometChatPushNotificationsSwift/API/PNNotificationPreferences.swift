import Foundation

/// Which pushes of a group the user gets.
#if canImport(ObjectiveC)
@objc(PNGroupNotificationLevel)
#endif
public enum PNGroupNotificationLevel: Int, Sendable, CaseIterable {
    /// Every message (the default).
    case all = 0
    /// Only messages that mention the user (the message's `mentions`).
    case mentionsOnly = 1
    /// No chat pushes from the group (calls still ring).
    case nothing = 2

    /// The wire value: `all`, `mentions` or `none`.
    public var wireValue: String {
        switch self {
        case .all: return "all"
        case .mentionsOnly: return "mentions"
        case .nothing: return "none"
        }
    }

    /// The level of a wire value, or `nil`.
    public init?(wireValue: String) {
        guard let level = Self.allCases.first(where: { $0.wireValue == wireValue }) else { return nil }
        self = level
    }
}

/// A muted conversation: no chat pushes from it until ``until`` (calls still ring).
#if canImport(ObjectiveC)
@objc(PNConversationMute) @objcMembers
#endif
public final class PNConversationMute: NSObject, Sendable {
    /// ``CometChatReceiverType/user`` (a one-to-one conversation with ``receiverId``) or
    /// ``CometChatReceiverType/group``.
    public let receiverType: CometChatReceiverType
    /// The other user's uid, or the group's guid.
    public let receiverId: String
    /// When the mute ends, or `nil` for forever.
    public let until: Date?

    /// Creates a mute.
    public init(receiverType: CometChatReceiverType, receiverId: String, until: Date?) {
        self.receiverType = receiverType
        self.receiverId = receiverId
        self.until = until
    }

    /// Whether the mute holds at `date`.
    public func isActive(at date: Date) -> Bool { until.map { $0 > date } ?? true }
}

/// A group's notification level.
#if canImport(ObjectiveC)
@objc(PNGroupNotificationSetting) @objcMembers
#endif
public final class PNGroupNotificationSetting: NSObject, Sendable {
    /// The group's guid.
    public let groupId: String
    /// Its level.
    public let level: PNGroupNotificationLevel

    /// Creates a setting.
    public init(groupId: String, level: PNGroupNotificationLevel) {
        self.groupId = groupId
        self.level = level
    }
}

/// A daily window during which chat pushes arrive quietly: in Notification Center, without
/// sound, without lighting the screen (`interruption-level: passive`). Calls still ring unless
/// ``includeCalls``.
#if canImport(ObjectiveC)
@objc(PNQuietHours) @objcMembers
#endif
public final class PNQuietHours: NSObject, Sendable {
    /// When the window starts (its `hour` and `minute`).
    public let start: DateComponents
    /// When it ends; before ``start`` for a window that crosses midnight.
    public let end: DateComponents
    /// Whether calls are quiet too.
    public let includeCalls: Bool
    /// The IANA time zone of the window, when set explicitly; otherwise the service uses the
    /// zone of the user's most recent token registration.
    public let timeZone: String?

    /// Creates a window.
    public init(start: DateComponents, end: DateComponents, includeCalls: Bool, timeZone: String? = nil) {
        self.start = start
        self.end = end
        self.includeCalls = includeCalls
        self.timeZone = timeZone
    }
}

/// The user's notification preferences, as the self-hosted push service keeps and enforces
/// them: muted conversations, group levels and quiet hours.
#if canImport(ObjectiveC)
@objc(PNNotificationPreferences) @objcMembers
#endif
public final class PNNotificationPreferences: NSObject, Sendable {
    /// The muted conversations (the service lists no expired mute).
    public let mutes: [PNConversationMute]
    /// The groups whose level is set.
    public let groups: [PNGroupNotificationSetting]
    /// The quiet hours, or `nil`.
    public let quietHours: PNQuietHours?
    /// The time zone the service applies the quiet hours in, or `nil` when it knows none.
    public let timeZone: String?

    /// Creates preferences.
    public init(
        mutes: [PNConversationMute] = [], groups: [PNGroupNotificationSetting] = [], quietHours: PNQuietHours? = nil,
        timeZone: String? = nil
    ) {
        self.mutes = mutes
        self.groups = groups
        self.quietHours = quietHours
        self.timeZone = timeZone
    }

    /// The level of group `groupId` (``PNGroupNotificationLevel/all`` when not set).
    public func level(groupId: String) -> PNGroupNotificationLevel {
        groups.first { $0.groupId == groupId }?.level ?? .all
    }

    /// Whether the one-to-one conversation with `userId` is muted at `date`.
    public func isMuted(userId: String, at date: Date = Date()) -> Bool {
        mutes.contains { $0.receiverType == .user && $0.receiverId == userId && $0.isActive(at: date) }
    }

    /// Whether group `groupId` is muted at `date` (level ``PNGroupNotificationLevel/nothing``
    /// counts as muted).
    public func isMuted(groupId: String, at date: Date = Date()) -> Bool {
        level(groupId: groupId) == .nothing
            || mutes.contains { $0.receiverType == .group && $0.receiverId == groupId && $0.isActive(at: date) }
    }

    /// A summary without ids, for logs.
    public override var description: String {
        "PNNotificationPreferences(mutes: \(mutes.count), groups: \(groups.count), "
            + "quietHours: \(quietHours == nil ? "off" : "on"))"
    }
}
