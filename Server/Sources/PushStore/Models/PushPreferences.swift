#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user's notification preferences in one app: mutes, group levels and quiet hours. The send
/// path applies them per recipient (see Server/README.md, "Preferences").
public struct PushPreferences: Sendable, Hashable {
    /// A muted conversation.
    public struct Mute: Sendable, Hashable {
        /// `user` (a 1:1 conversation with `receiver`) or `group` (the group `receiver`).
        public var receiverType: String
        /// The other user's uid or the group's guid.
        public var receiver: String
        /// When the mute ends; nil is forever.
        public var until: Date?

        /// Creates a value.
        public init(receiverType: String, receiver: String, until: Date?) {
            self.receiverType = receiverType
            self.receiver = receiver
            self.until = until
        }

        /// Whether the mute is in force at `now` (a mute ends at `until`, exclusive).
        public func isActive(at now: Date) -> Bool {
            until.map { now < $0 } ?? true
        }
    }

    /// What a user hears of a group.
    public struct GroupLevel: Sendable, Hashable {
        /// The group.
        public var guid: String
        /// `all`, `mentions` or `none`.
        public var level: String

        /// Creates a value.
        public init(guid: String, level: String) {
            self.guid = guid
            self.level = level
        }
    }

    /// A daily window during which chat pushes are delivered quietly.
    public struct QuietHours: Sendable, Hashable {
        /// Start, in minutes after midnight (0...1439), inclusive.
        public var start: Int
        /// End, in minutes after midnight (0...1439), exclusive; before `start` when the window
        /// crosses midnight.
        public var end: Int
        /// Whether calls are quiet too.
        public var includeCalls: Bool
        /// The IANA zone of the window; nil means the zone of the user's most recent token
        /// registration.
        public var timezone: String?

        /// Creates a value.
        public init(start: Int, end: Int, includeCalls: Bool, timezone: String?) {
            self.start = start
            self.end = end
            self.includeCalls = includeCalls
            self.timezone = timezone
        }

        /// Whether `minute` (minutes after midnight) falls in the window.
        public func contains(minute: Int) -> Bool {
            start < end ? (start <= minute && minute < end) : (minute >= start || minute < end)
        }
    }

    /// Muted conversations (expired ones included until they are replaced or deleted).
    public var mutes: [Mute]
    /// Group levels, by guid.
    public var groups: [GroupLevel]
    /// Quiet hours, if set.
    public var quietHours: QuietHours?

    /// Creates a value.
    public init(mutes: [Mute] = [], groups: [GroupLevel] = [], quietHours: QuietHours? = nil) {
        self.mutes = mutes
        self.groups = groups
        self.quietHours = quietHours
    }
}
