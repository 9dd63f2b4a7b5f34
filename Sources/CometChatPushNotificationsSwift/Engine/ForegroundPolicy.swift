import Foundation

/// Decides what happens to a notification that arrives while the app is in the foreground:
/// how it is presented and what the badge becomes. Pure: no state, no side effects.
///
/// - Chat: banner, list and sound, unless `showInAppNotifications` is off or the conversation
///   is the active one.
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

    /// Creates a policy.
    public init(showInAppNotifications: Bool, enableBadgeCount: Bool, activeConversation: PNActiveConversation?) {
        self.showInAppNotifications = showInAppNotifications
        self.enableBadgeCount = enableBadgeCount
        self.activeConversation = activeConversation
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
