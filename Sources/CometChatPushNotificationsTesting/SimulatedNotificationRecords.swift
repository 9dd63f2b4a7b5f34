import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// One push (or local notification request) delivered to the simulated device and what became
/// of it.
public final class SimulatedDelivery: @unchecked Sendable {
    // @unchecked: mutable state is inside `state`.

    /// The notification as the app sees it.
    public let notification: PNNotification
    /// The app's state when it arrived; `nil` when the app was not running.
    public let appState: PNApplicationState?
    /// The interruption level (`passive`, `active`, `time-sensitive`, `critical`): a push's
    /// `aps.interruption-level`, `active` when it has none; a local request's own.
    public let interruptionLevel: String
    /// Whether it carries a sound: a push's `aps.sound`, a local request's `playsSound`.
    private let hasSound: Bool

    private let state = PNLocked<(options: PNPresentationOptions?, answered: Int)>((nil, 0))
    private let presentation = PNLocked<(shown: Bool, sound: Bool, lit: Bool)>((false, false, false))

    /// A push: its sound and interruption level come from `aps`.
    init(notification: PNNotification, appState: PNApplicationState?) {
        let aps = notification.userInfo["aps"] as? [String: Any]
        self.notification = notification
        self.appState = appState
        interruptionLevel = (aps?["interruption-level"] as? String) ?? "active"
        hasSound = aps?["sound"] != nil
    }

    /// A local notification request.
    init(notification: PNNotification, appState: PNApplicationState?, request: PNLocalNotificationRequest) {
        self.notification = notification
        self.appState = appState
        interruptionLevel = request.interruptionLevel.rawValue
        hasSound = request.playsSound
    }

    /// Whether iOS showed it (in Notification Center or as a banner).
    public var wasShown: Bool { presentation.withLock { $0.shown } }

    /// Whether iOS played a sound for it: it has a sound (`aps.sound`), it was shown (in the
    /// foreground: with the `.sound` option) and it is not `passive`.
    public var playedSound: Bool { presentation.withLock { $0.sound } }

    /// Whether it lit the locked screen (the app not in the foreground, and not `passive`: a
    /// passive notification goes to Notification Center only).
    public var litScreen: Bool { presentation.withLock { $0.lit } }

    /// iOS presented it: shown, with sound or not, lighting the screen or not.
    func presented(foreground: Bool, sound: Bool) {
        let passive = interruptionLevel == "passive"
        presentation.withLock {
            $0 = (true, sound && hasSound && !passive, !foreground && !passive)
        }
    }

    /// What `willPresent` answered (foreground only); `nil` before it answered or when iOS did
    /// not ask (background, killed, no delegate).
    public var foregroundOptions: PNPresentationOptions? { state.withLock { $0.options } }

    /// How many times `willPresent`'s completion handler was called (iOS expects exactly one).
    public var willPresentAnswers: Int { state.withLock { $0.answered } }

    /// Records an answer; returns whether it was the first (iOS takes only that one).
    func answer(_ options: PNPresentationOptions) -> Bool {
        state.withLock {
            $0.answered += 1
            guard $0.answered == 1 else { return false }
            $0.options = options
            return true
        }
    }
}

/// One user response (tap, reply, dismiss) and what became of it.
public final class SimulatedResponse: @unchecked Sendable {
    // @unchecked: mutable state is inside `state`.

    /// What reached the app.
    public let response: PNNotificationResponse

    private let state = PNLocked<(reached: SimulatedNotificationCenter.DelegateOwner?, completions: Int)>((nil, 0))

    init(response: PNNotificationResponse) {
        self.response = response
    }

    /// Who received it; `nil` when it was lost (no delegate when iOS delivered it, rule 1).
    public var receivedBy: SimulatedNotificationCenter.DelegateOwner? { state.withLock { $0.reached } }

    /// Whether the response was lost.
    public var wasLost: Bool { receivedBy == nil }

    /// How many times the completion handler was called (iOS expects exactly one, rule 22).
    public var completionCalls: Int { state.withLock { $0.completions } }

    func reached(_ owner: SimulatedNotificationCenter.DelegateOwner) { state.withLock { $0.reached = owner } }
    /// Counts a call of the completion handler; returns how many there have been.
    @discardableResult
    func completed() -> Int {
        state.withLock {
            $0.completions += 1
            return $0.completions
        }
    }
}
