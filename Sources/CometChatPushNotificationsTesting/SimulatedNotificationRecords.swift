import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// One push delivered to the simulated device and what became of it.
public final class SimulatedDelivery: @unchecked Sendable {
    // @unchecked: mutable state is inside `state`.

    /// The notification as the app sees it.
    public let notification: PNNotification
    /// The app's state when it arrived; `nil` when the app was not running.
    public let appState: PNApplicationState?

    private let state = PNLocked<(options: PNPresentationOptions?, answered: Int)>((nil, 0))

    init(notification: PNNotification, appState: PNApplicationState?) {
        self.notification = notification
        self.appState = appState
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
