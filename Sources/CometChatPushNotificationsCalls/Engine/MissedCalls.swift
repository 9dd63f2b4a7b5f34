import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The "Missed call" notification: what it shows, its category with the Call back action, the
/// keys it carries in `userInfo`, and its identifier.
enum MissedCallNotification {
    /// The category with the Call back action, its button in the language of `texts`.
    static func category(_ texts: MissedCallTexts) -> PNNotificationCategory {
        PNNotificationCategory(
            identifier: CometChatPushNotificationsCalls.missedCallCategoryIdentifier,
            actions: [
                PNNotificationAction(
                    identifier: CometChatPushNotificationsCalls.callBackActionIdentifier, title: texts.callBack,
                    options: [.foreground])
            ])
    }

    /// `userInfo["type"]` of a missed-call notification: no push has it, so the notification is
    /// never taken for a chat or call push.
    static let type = "missedCall"

    /// The `userInfo` keys (a local notification's `userInfo` is `[String: String]`), under a
    /// prefix no push payload uses.
    enum Key {
        static let type = "type"
        static let sessionId = "missedCall.sessionId"
        static let callerUid = "missedCall.callerUid"
        static let callerName = "missedCall.callerName"
        static let receiver = "missedCall.receiver"
        static let callType = "missedCall.callType"
        static let isGroup = "missedCall.isGroup"
    }

    /// The request for `call`. Its identifier is the call's alert collapse id, so the alert push
    /// of the same call (to a device that also has an alert token) and this notification replace
    /// each other instead of showing twice; its thread is the caller's, so missed calls are
    /// grouped by caller. Its words are in the language of `texts`; the title is the caller's
    /// name, or `texts.unknownCaller` when the push named no caller (a private app's VoIP token
    /// without a key).
    static func request(for call: IncomingCall, crypto: PNPushCrypto, texts: MissedCallTexts) -> PNLocalNotificationRequest {
        let named = !(call.callerUid.isEmpty && call.callerName == CallPush.placeholderName)
        let group = call.isGroup ? CallPushParser.text(call.rawPayload["receiverName"]) ?? call.receiver : nil
        return PNLocalNotificationRequest(
            identifier: identifier(sessionId: call.sessionId, crypto: crypto),
            title: named ? call.callerName : texts.unknownCaller, body: texts.body(video: call.isVideo, group: group),
            threadIdentifier: call.callerUid.isEmpty ? nil : call.callerUid,
            categoryIdentifier: CometChatPushNotificationsCalls.missedCallCategoryIdentifier,
            userInfo: [
                Key.type: type, Key.sessionId: call.sessionId, Key.callerUid: call.callerUid,
                Key.callerName: named ? call.callerName : "", Key.receiver: call.receiver, Key.callType: call.callType.name,
                Key.isGroup: call.isGroup ? "true" : "false",
            ])
    }

    /// The `apns-collapse-id` of the call's alert pushes (Contract/WIRE-CONTRACT.md §5): the
    /// session id when it fits APNs' 64 bytes, else `sha256-` and the unpadded base64url SHA-256
    /// of the session id. Without SHA-256 (a crypto port that lacks it) the session id itself:
    /// the notification is still shown, only not merged with the alert.
    static func identifier(sessionId: String, crypto: PNPushCrypto) -> String {
        guard sessionId.utf8.count > 64 else { return sessionId }
        guard let digest = try? crypto.sha256(Array(sessionId.utf8)) else { return sessionId }
        return "sha256-" + PNBase64URL.encode(digest)
    }

    /// Whether `notification` is a missed-call notification.
    static func isMissedCall(_ notification: PNNotification) -> Bool {
        notification.userInfo[Key.type] as? String == type
    }

    /// The missed call a notification's `userInfo` describes, or `nil` when it is not one. A
    /// caller the push did not name is called `unknownCaller`, as the notification's title.
    static func missedCall(from userInfo: [AnyHashable: Any], unknownCaller: String) -> PNMissedCall? {
        guard userInfo[Key.type] as? String == type, let sessionId = userInfo[Key.sessionId] as? String else { return nil }
        func text(_ key: String) -> String { userInfo[key] as? String ?? "" }
        let name = text(Key.callerName)
        return PNMissedCall(
            sessionId: sessionId, callerUid: text(Key.callerUid), callerName: name.isEmpty ? unknownCaller : name,
            receiver: text(Key.receiver), callType: text(Key.callType) == "video" ? .video : .audio,
            isGroup: text(Key.isGroup) == "true")
    }
}

/// Posts missed-call notifications and hands their taps and Call back actions to the delegate.
final class MissedCalls: Sendable {
    private struct State {
        weak var sdk: CometChatPushNotifications?
        var enabled = true
        var held: [PNMissedCall] = []
        var observing = false
    }

    private let state: PNLocked<State>

    init(sdk: CometChatPushNotifications) {
        var initial = State()
        initial.sdk = sdk
        state = PNLocked(initial)
    }

    /// `PNConfiguration.missedCallNotifications`.
    var enabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    /// Whether a call that ended with `reason` was missed here: the caller hung up, or nobody
    /// answered before the ring timeout. Not a call declined here or on another device, answered
    /// elsewhere, turned away busy, failed, or ended after it was answered.
    static func isMissed(_ reason: CallEndReason) -> Bool {
        reason == .cancelled || reason == .timedOut
    }

    /// Posts the notification of a missed call, when the option is on and the user allows
    /// notifications. Counted as SDK work until the notification center took it.
    func post(_ call: IncomingCall) {
        guard let sdk = state.withLock({ $0.sdk }) else { return }
        let platform = sdk.runtimePlatform
        guard enabled else {
            platform.logger.log(.debug, "Call \(call.sessionId) was missed; missedCallNotifications is off, so no notification.")
            return
        }
        let texts = MissedCallTexts.forLanguages(platform.preferredLanguages())
        let request = MissedCallNotification.request(for: call, crypto: platform.pushCrypto, texts: texts)
        sdk.beginWork()
        Task { [weak sdk] in
            defer { sdk?.endWork() }
            let permission = await platform.permissions.currentPermission()
            guard permission.allowsNotifications else {
                platform.logger.log(
                    .info,
                    "Call \(call.sessionId) was missed; notification permission is \(permission.rawValue), so no missed-call notification.")
                return
            }
            let error: (any Error)? = await withCheckedContinuation { continuation in
                platform.notificationCenter.add(request) { continuation.resume(returning: $0) }
            }
            if let error {
                platform.logger.log(.warning, "The missed-call notification of call \(call.sessionId) was not added: \(error).")
            } else {
                platform.logger.log(.info, "Call \(call.sessionId) was missed: notification posted.")
            }
        }
    }

    /// A response to a missed-call notification: a tap or Call back reaches the delegate's
    /// `callBack(_:)`; a dismissal only completes. `false` for other notifications.
    func handleResponse(_ response: PNNotificationResponse, completion: @escaping @Sendable () -> Void) -> Bool {
        guard MissedCallNotification.isMissedCall(response.notification) else { return false }
        switch response.action {
        case .open, .custom(CometChatPushNotificationsCalls.callBackActionIdentifier):
            let languages = state.withLock { $0.sdk }?.runtimePlatform.preferredLanguages() ?? []
            let unknownCaller = MissedCallTexts.forLanguages(languages).unknownCaller
            guard let call = MissedCallNotification.missedCall(from: response.notification.userInfo, unknownCaller: unknownCaller)
            else {
                completion()
                return true
            }
            callBack(call, completion: completion)
        case .dismiss, .custom, .textInput:
            completion()
        }
        return true
    }

    /// Hands `call` to the Calls delegate on the callback queue, or holds it until one is set
    /// (rule 3: a tap that launched the app may come before the delegate).
    private func callBack(_ call: PNMissedCall, completion: (@Sendable () -> Void)?) {
        guard let sdk = state.withLock({ $0.sdk }) else {
            completion?()
            return
        }
        sdk.beginWork()
        sdk.runtimePlatform.callbackQueue.async { [weak self, weak sdk] in
            defer {
                completion?()
                sdk?.endWork()
            }
            guard let sdk else { return }
            guard let delegate = sdk.delegate as? CometChatPushNotificationsCallsDelegate else {
                self?.hold(call, sdk)
                return
            }
            if !delegate.pnCallBack(call) {
                sdk.runtimePlatform.logger.log(
                    .warning, "A missed call's Call back was tapped; the Calls delegate does not implement callBack(_:).")
            }
        }
    }

    private func hold(_ call: PNMissedCall, _ sdk: CometChatPushNotifications) {
        let observe = state.withLock { s -> Bool in
            s.held.append(call)
            defer { s.observing = true }
            return !s.observing
        }
        if observe { sdk.observeDelegate { [weak self] in self?.deliverHeld() } }
        sdk.runtimePlatform.logger.log(
            .info, "A missed call was tapped before a Calls delegate was set; callBack(_:) follows once one is.")
        // The delegate may have been set between the check and the hold.
        if sdk.delegate is CometChatPushNotificationsCallsDelegate { deliverHeld() }
    }

    /// Hands over the call-backs held while there was no Calls delegate, each exactly once.
    private func deliverHeld() {
        guard let sdk = state.withLock({ $0.sdk }), sdk.delegate is CometChatPushNotificationsCallsDelegate else { return }
        let held = state.withLock { s -> [PNMissedCall] in
            defer { s.held.removeAll() }
            return s.held
        }
        for call in held { callBack(call, completion: nil) }
    }
}
