import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension SimulatedDevice {
    /// APNs delivers an alert push. In the foreground iOS asks the notification center's
    /// delegate how to present it (rule 19: no options, or no delegate, hides it; the completion
    /// handler counts once, a second call is a violation); in the background or while the app is
    /// not running the system shows it and applies `aps.badge` (rule 21), if the user allowed
    /// notifications (rule 23: the app must have asked). A `passive` notification
    /// (`aps.interruption-level`) neither plays its sound nor lights the screen
    /// (``SimulatedDelivery/playedSound``, ``SimulatedDelivery/litScreen``).
    ///
    /// The notification's identifier is the push's `collapseId` (its `apns-collapse-id`) when it
    /// has one, as on iOS, else `identifier` (its `apns-id`), else a new one. A push with the
    /// identifier of a notification in Notification Center replaces it, shown again (with its
    /// sound, unless passive) and moved to the top; one the user dismissed shows again, once
    /// (rule 33).
    @discardableResult
    public func deliver(_ payload: [String: Any], identifier: String? = nil, collapseId: String? = nil) -> SimulatedDelivery {
        let center = notificationCenter
        let notification = center.makeNotification(payload, identifier: collapseId ?? identifier)
        let delivery = SimulatedDelivery(notification: notification, appState: app?.state)
        let apsBadge = (payload["aps"] as? [String: Any])?["badge"] as? Int
        present(delivery, badge: apsBadge) { center.show(notification) }
        return delivery
    }

    /// The app added a local notification request: iOS presents it as it presents a push (in the
    /// foreground `willPresent` decides), in the place of a delivered notification with its
    /// identifier (rule 33).
    func presentLocal(_ request: PNLocalNotificationRequest, _ notification: PNNotification) {
        let delivery = SimulatedDelivery(notification: notification, appState: app?.state, request: request)
        notificationCenter.recordLocal(delivery)
        let center = notificationCenter
        present(delivery, badge: nil) { center.showLocal(request, notification) }
    }

    /// Presents a notification as iOS does: in the foreground the delegate's `willPresent`
    /// answers (rule 19: no options, or no delegate, hides it; the completion handler counts
    /// once); in the background, or with the app not running, the system shows it (rule 23: if
    /// the user allowed notifications) and applies `badge` (rule 21).
    private func present(_ delivery: SimulatedDelivery, badge: Int?, show: @escaping @Sendable () -> Void) {
        switch delivery.appState {
        case .active?, .inactive?:
            guard let delegate = notificationCenter.currentDelegate else {
                logger.log(.warning, "iOS: no notification-center delegate; a foreground notification was not shown.")
                return
            }
            delegate.events.willPresent(delivery.notification) { [weak self] options in
                guard delivery.answer(options) else {
                    self?.recordViolation("willPresent's completion handler was called more than once")
                    return
                }
                guard self?.notificationsAllowed == true else { return }
                if !options.isDisjoint(with: [.banner, .list]) {
                    show()
                    delivery.presented(foreground: true, sound: options.contains(.sound))
                }
                if options.contains(.badge), let badge { self?.setSystemBadge(badge) }
            }
        case .background?, nil:
            guard notificationsAllowed else {
                logger.log(.info, "iOS: notifications are not allowed; a notification was not shown.")
                return
            }
            show()
            delivery.presented(foreground: false, sound: true)
            if let badge { setSystemBadge(badge) }
        }
    }

    /// Whether the user allowed notifications (authorized, provisional or ephemeral): the
    /// running process's answer, or the one it left behind.
    var notificationsAllowed: Bool {
        let permission = app.map { $0.permissions.state.withLock { $0.permission } } ?? storedPermission
        switch permission {
        case .authorized, .provisional, .ephemeral: return true
        case .notDetermined, .denied: return false
        }
    }

    /// `payload` with `aps.content-available: 1`, as the service sends it for a provider with
    /// "include content-available" on: such an alert push also wakes the app in the background.
    public static func withContentAvailable(_ payload: [String: Any]) -> [String: Any] {
        var payload = payload
        var aps = payload["aps"] as? [String: Any] ?? [:]
        aps["content-available"] = 1
        payload["aps"] = aps
        return payload
    }

    /// APNs delivers a silent push to the running app, which hands it to the SDK from
    /// `didReceiveRemoteNotification` as the guide shows (rule 20). iOS delivers it only when
    /// the payload has `aps.content-available: 1` and the app declares the `remote-notification`
    /// background mode. Returns `false` when it was not delivered (also when the app is not
    /// running).
    ///
    /// The app plays the guide's `didReceiveRemoteNotification`: it calls the fetch completion
    /// handler when the SDK's completion runs. With `completesAtOnce` it plays the older
    /// pattern that calls it right after handing the push over, which lets iOS suspend a
    /// background app before its receipt goes out.
    @discardableResult
    public func deliverSilent(_ payload: [String: Any], completesAtOnce: Bool = false) -> Bool {
        guard let app else { return false }
        let aps = payload["aps"] as? [String: Any]
        let flag = aps?["content-available"]
        guard (flag as? Int) == 1 || (flag as? String) == "1" else {
            logger.log(.info, "iOS: a push without aps.content-available: 1 does not wake the app.")
            return false
        }
        guard app.application.backgroundModes().contains("remote-notification") else {
            logger.log(.info, "iOS: no remote-notification background mode; a silent push was not delivered.")
            return false
        }
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in payload { userInfo[key] = value }
        if completesAtOnce {
            app.sdk.handleBackgroundNotification(userInfo: userInfo)
            fetchCompleted(app)
        } else {
            app.sdk.handleBackgroundNotification(userInfo: userInfo) { [weak self] _ in self?.fetchCompleted(app) }
        }
        return true
    }

    /// The fetch completion handler ran: a background app is suspended at once (rule 26).
    private func fetchCompleted(_ app: SimulatedApp) {
        if app.state == .background { app.process.suspend() }
    }

    /// The user taps a notification. A running app comes to the foreground; an app that is not
    /// running is launched with `didFinishLaunching` and iOS hands the tap to the notification
    /// center's delegate right after it returns: if nobody became the delegate by then, the tap
    /// is lost (rule 1).
    @discardableResult
    public func tap(
        _ notification: PNNotification,
        launching didFinishLaunching: ((CometChatPushNotifications) -> Void)? = nil
    ) -> SimulatedResponse {
        respond(
            PNNotificationResponse(notification: notification, action: .open), opensApp: true,
            launching: didFinishLaunching)
    }

    /// The user types `text` in the notification's text-input action. The app stays in (or is
    /// launched into) the background (rule 22). Throws when the notification's category has no
    /// text-input action: iOS would not offer one.
    @discardableResult
    public func reply(
        to notification: PNNotification, text: String,
        launching didFinishLaunching: ((CometChatPushNotifications) -> Void)? = nil
    ) throws -> SimulatedResponse {
        let action = notificationCenter.category(notification.categoryIdentifier)?.actions.first {
            if case .textInput = $0.kind { return true }
            return false
        }
        guard let action else {
            throw SimulatedError(
                reason: "The category \"\(notification.categoryIdentifier)\" is not registered "
                    + "with a text-input action, so iOS offers no reply.")
        }
        return respond(
            PNNotificationResponse(
                notification: notification,
                action: .textInput(actionIdentifier: action.identifier, text: text)),
            opensApp: false, launching: didFinishLaunching)
    }

    /// The user chooses the button `actionIdentifier` of the notification's category (not a
    /// text-input action: see ``reply(to:text:launching:)``). An action with the `foreground`
    /// option brings the app to the foreground, or launches it; another leaves it in (or launches
    /// it into) the background. Throws when the notification's category has no such button:
    /// iOS would not offer it (rule 4: a category replaced by a later set is gone).
    @discardableResult
    public func perform(
        _ actionIdentifier: String, on notification: PNNotification,
        launching didFinishLaunching: ((CometChatPushNotifications) -> Void)? = nil
    ) throws -> SimulatedResponse {
        let action = notificationCenter.category(notification.categoryIdentifier)?.actions.first {
            $0.identifier == actionIdentifier && $0.kind == .button
        }
        guard let action else {
            throw SimulatedError(
                reason: "The category \"\(notification.categoryIdentifier)\" is not registered "
                    + "with a button \"\(actionIdentifier)\", so iOS offers no such action.")
        }
        return respond(
            PNNotificationResponse(notification: notification, action: .custom(action.identifier)),
            opensApp: action.options.contains(.foreground), launching: didFinishLaunching)
    }

    /// The user dismisses the notification. The app hears of it only when the category reports
    /// dismissals; otherwise this returns `nil`.
    @discardableResult
    public func dismiss(_ notification: PNNotification) -> SimulatedResponse? {
        notificationCenter.remove(notification)
        guard notificationCenter.category(notification.categoryIdentifier)?.reportsDismiss == true, app != nil else {
            return nil
        }
        return respond(PNNotificationResponse(notification: notification, action: .dismiss), opensApp: false, launching: nil)
    }

    private func respond(
        _ response: PNNotificationResponse, opensApp: Bool,
        launching didFinishLaunching: ((CometChatPushNotifications) -> Void)?
    ) -> SimulatedResponse {
        let record = SimulatedResponse(response: response)
        notificationCenter.remove(response.notification)
        if let app {
            if opensApp { app.bringToForeground() }
        } else {
            launch(didFinishLaunching ?? { _ in })
            if !opensApp { app?.sendToBackground() }
        }
        guard let delegate = notificationCenter.currentDelegate else {
            logger.log(.warning, "iOS: no notification-center delegate when the response arrived; it was lost.")
            return record
        }
        record.reached(delegate.owner)
        delegate.events.didReceive(response) { [weak self] in
            if record.completed() > 1 {
                self?.recordViolation("didReceive's completion handler was called more than once")
            }
        }
        return record
    }
}

extension SimulatedApp {
    /// Every badge the app set through the SDK, in order (not the system's `aps.badge`).
    public var badgeHistory: [Int] { application.state.withLock { $0.badgeHistory } }
}
