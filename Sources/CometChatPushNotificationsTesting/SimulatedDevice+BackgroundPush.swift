import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// One background push (`apns-push-type: background`) APNs handed to the device, and what the
/// app did with it.
public final class SimulatedBackgroundPush: @unchecked Sendable {
    // @unchecked: mutable state is inside `state`.

    /// What iOS did with the push.
    public enum Outcome: Equatable, Sendable {
        /// Handed to the app's `didReceiveRemoteNotification`.
        case delivered
        /// Not delivered, for this reason.
        case notDelivered(String)
    }

    private struct State {
        var outcome: Outcome
        var results: [PNBackgroundFetchResult] = []
    }
    private let state: PNLocked<State>

    init(outcome: Outcome) { state = PNLocked(State(outcome: outcome)) }

    /// What iOS did with the push.
    public var outcome: Outcome { state.withLock { $0.outcome } }
    /// Whether the app called the fetch completion handler.
    public var isCompleted: Bool { state.withLock { !$0.results.isEmpty } }
    /// The result the app passed to the fetch completion handler, if it called it.
    public var result: PNBackgroundFetchResult? { state.withLock { $0.results.first } }

    /// Counts one call of the completion handler; returns how many there were.
    func complete(_ result: PNBackgroundFetchResult) -> Int {
        state.withLock {
            $0.results.append(result)
            return $0.results.count
        }
    }
}

extension SimulatedDevice {
    /// The user swipes the app away in the app switcher: the process ends, and iOS delivers no
    /// background push to it (nor launches it for one) until the user launches it again.
    public func forceQuit() {
        state.withLock { $0.forceQuit = true }
        terminate()
    }

    /// iOS throttles background pushes (it delivers them at its discretion: a few an hour, fewer
    /// in Low Power Mode); while on, every background push is held back.
    public func throttleBackgroundPushes(_ on: Bool) { state.withLock { $0.throttleBackgroundPushes = on } }

    /// APNs delivers a background push (`apns-push-type: background`) with `priority` (APNs
    /// accepts only 5 for that type). iOS hands it to the app's
    /// `didReceiveRemoteNotification(_:fetchCompletionHandler:)` (the app plays the guide's: it
    /// passes the SDK's result on), launching a terminated app in the background, unless:
    /// the payload lacks `aps.content-available: 1`, the priority is not 5, the app does not
    /// declare the `remote-notification` background mode, the user force-quit the app, or
    /// iOS throttles background pushes. The app has about 30 s: see ``runOutBackgroundTime()``.
    /// With `appCallsCompletion` off the app plays a wrong `didReceiveRemoteNotification` that
    /// drops the fetch completion handler.
    @discardableResult
    public func deliverBackground(
        _ payload: [String: Any], priority: Int = 5, appCallsCompletion: Bool = true
    ) -> SimulatedBackgroundPush {
        let refuse = { (reason: String) -> SimulatedBackgroundPush in
            self.logger.log(.info, "iOS: a background push was not delivered: \(reason).")
            return SimulatedBackgroundPush(outcome: .notDelivered(reason))
        }
        let flag = (payload["aps"] as? [String: Any])?["content-available"]
        guard (flag as? Int) == 1 || (flag as? String) == "1" else { return refuse("no aps.content-available: 1") }
        guard priority == 5 else { return refuse("APNs refuses a background push with priority \(priority)") }
        let (forceQuit, throttled, modes) = state.withLock { ($0.forceQuit, $0.throttleBackgroundPushes, $0.backgroundModes) }
        guard modes.contains("remote-notification") else { return refuse("no remote-notification background mode") }
        guard !forceQuit else { return refuse("the user force-quit the app") }
        guard !throttled else { return refuse("iOS throttled it") }
        guard let app = app ?? launchInBackground() else { return refuse("the app never ran") }
        let push = SimulatedBackgroundPush(outcome: .delivered)
        state.withLock { $0.backgroundPushes.append(push) }
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in payload { userInfo[key] = value }
        app.sdk.handleBackgroundNotification(userInfo: userInfo) { [weak self, weak app] result in
            guard let self, appCallsCompletion else { return }
            if push.complete(result) > 1 {
                self.recordViolation("the fetch completion handler of a background push was called more than once")
            }
            // Rule 26: the app may be suspended as soon as it calls the completion handler.
            if let app, app.state == .background { app.process.suspend() }
        }
        return push
    }

    /// The `type: read` background push a self-hosted service sends when the user read a
    /// conversation on another device (issue 18's wire agreement), delivered as
    /// ``deliverBackground(_:priority:appCallsCompletion:)`` delivers it.
    @discardableResult
    public func deliverReadPush(
        conversationId: String, unreadCount: Int? = nil, pushId: String? = nil, appCallsCompletion: Bool = true
    ) -> SimulatedBackgroundPush {
        var payload: [String: Any] = ["aps": ["content-available": 1], "type": "read", "conversationId": conversationId]
        if let unreadCount { payload["unreadCount"] = String(unreadCount) }
        if let pushId { payload["pushId"] = pushId }
        return deliverBackground(payload, appCallsCompletion: appCallsCompletion)
    }

    /// The 30 s of a background push are over: iOS kills an app that has not called the fetch
    /// completion handler of every background push it was handed (rule 20).
    public func runOutBackgroundTime() {
        let pending = state.withLock { state -> Bool in
            defer { state.backgroundPushes.removeAll() }
            return state.backgroundPushes.contains { !$0.isCompleted }
        }
        if pending { kill("a background push's fetch completion handler was not called within 30 s") }
    }
}
