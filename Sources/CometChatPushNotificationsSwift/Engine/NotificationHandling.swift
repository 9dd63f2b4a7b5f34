import Foundation

/// The SDK's notification-handling state: the conversation on screen and the taps waiting for
/// a delegate (rule 3: a tap that launches the app may arrive before the app set one).
final class NotificationHandling: Sendable {
    struct State {
        var activeConversation: PNActiveConversation?
        /// The last preferences a preferences call answered.
        var preferences: PNNotificationPreferences?
        var heldTaps: [CometChatNotificationInfo] = []
        var centerInstalled = false
        var observingDelegate = false
    }

    let state = PNLocked(State())

    /// Takes the held taps; each is returned once.
    func takeHeldTaps() -> [CometChatNotificationInfo] {
        state.withLock { state in
            defer { state.heldTaps.removeAll() }
            return state.heldTaps
        }
    }
}

/// Where a tap goes.
enum TapRoute: Equatable {
    /// A chat notification: the Chat product navigates, else `didTapNotification(_:)`.
    case chat
    /// A campaign: `navigateToNotificationsFeed()`.
    case campaign
    /// Anything else: `didTapNotification(_:)`.
    case other

    init(_ info: CometChatNotificationInfo) {
        switch info.kind {
        case .chat: self = .chat
        case .campaign: self = .campaign
        case .call, .other: self = .other
        }
    }
}
