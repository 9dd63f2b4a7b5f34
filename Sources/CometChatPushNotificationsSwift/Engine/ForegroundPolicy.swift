import Foundation

/// Decides what happens to a notification that arrives while the app is in the foreground:
/// how it is presented and what the badge becomes. Pure: no state, no side effects.
///
/// - Chat: banner, list and sound, unless `showInAppNotifications` is off, the conversation
///   is the active one, or it is muted in the last preferences the SDK saw (the service does not
///   push for a muted conversation; this hides one sent before the mute reached it).
/// - Call: never shown; the Calls product rings through CallKit, and CallKit records the
///   outcome in Recents.
/// - Campaign: banner, list and sound (`showInAppNotifications` is about chat).
/// - Other (the app's own): banner, list, sound and badge, as if the SDK were not the delegate.
///
/// The badge follows `unreadMessageCount` (when it is a usable number) while `enableBadgeCount`
/// is on, for chat (with `showInAppNotifications` on) and campaign notifications.
@_spi(PNProducts)
public struct PNForegroundPolicy: Sendable {
    /// `PNConfiguration.showInAppNotifications`.
    public var showInAppNotifications: Bool
    /// `PNConfiguration.enableBadgeCount`.
    public var enableBadgeCount: Bool
    /// The conversation on screen, if any.
    public var activeConversation: PNActiveConversation?
    /// The last notification preferences the SDK saw, if any.
    public var preferences: PNNotificationPreferences?
    /// The time mutes are checked at.
    public var now: Date

    /// Creates a policy.
    public init(
        showInAppNotifications: Bool, enableBadgeCount: Bool, activeConversation: PNActiveConversation?,
        preferences: PNNotificationPreferences? = nil, now: Date = Date()
    ) {
        self.showInAppNotifications = showInAppNotifications
        self.enableBadgeCount = enableBadgeCount
        self.activeConversation = activeConversation
        self.preferences = preferences
        self.now = now
    }

    /// Whether the preferences mute the conversation of a chat push.
    public func isMuted(_ info: CometChatNotificationInfo) -> Bool {
        guard let preferences else { return false }
        switch info.receiverType {
        case .group: return info.receiverId.map { preferences.isMuted(groupId: $0, at: now) } ?? false
        case .user, .unknown: return info.senderUid.map { preferences.isMuted(userId: $0, at: now) } ?? false
        }
    }

    /// The decision for `info`.
    public func decide(_ info: CometChatNotificationInfo) -> PNForegroundDecision {
        switch info.kind {
        case .chat:
            guard showInAppNotifications else {
                return PNForegroundDecision(options: [], badge: nil, reason: .inAppNotificationsOff)
            }
            let badge = badgeCount(info)
            if let activeConversation, activeConversation.matches(info) {
                return PNForegroundDecision(options: [], badge: badge, reason: .activeConversation)
            }
            if isMuted(info) { return PNForegroundDecision(options: [], badge: badge, reason: .muted) }
            return PNForegroundDecision(options: .alert, badge: badge, reason: .shown)
        case .call:
            return PNForegroundDecision(options: [], badge: nil, reason: .call)
        case .campaign:
            return PNForegroundDecision(options: .alert, badge: badgeCount(info), reason: .shown)
        case .other:
            return PNForegroundDecision(options: [.banner, .list, .sound, .badge], badge: nil, reason: .notCometChat)
        }
    }

    /// The badge a payload asks for, or `nil` when badges are off or the count is unusable.
    public func badgeCount(_ info: CometChatNotificationInfo) -> Int? {
        enableBadgeCount ? info.unreadMessageCount : nil
    }
}

/// What to do with a foreground notification.
@_spi(PNProducts)
public struct PNForegroundDecision: Sendable, Equatable {
    /// Why the notification is shown or hidden.
    public enum Reason: String, Sendable {
        /// Shown.
        case shown
        /// A chat notification hidden because `showInAppNotifications` is off.
        case inAppNotificationsOff
        /// A chat notification hidden because its conversation is on screen.
        case activeConversation
        /// A chat notification hidden because its conversation is muted in the last preferences
        /// the SDK saw.
        case muted
        /// A call push: CallKit rings instead.
        case call
        /// Not a CometChat push: presented as iOS would without the SDK.
        case notCometChat
    }

    /// How to present it; empty hides it.
    public var options: PNPresentationOptions
    /// The badge to set, or `nil` to leave it.
    public var badge: Int?
    /// Why.
    public var reason: Reason

    /// Creates a decision.
    public init(options: PNPresentationOptions, badge: Int?, reason: Reason) {
        self.options = options
        self.badge = badge
        self.reason = reason
    }
}
