import Foundation

extension CometChatPushNotifications {
    /// Makes the SDK the notification center's delegate and sets the categories to
    /// `MessageCategory`, once per instance. Runs first in `initialize`, so the tap that
    /// launched the app is not lost (rule 1).
    func installNotificationCenter() {
        let first = notifications.state.withLock { state -> Bool in
            defer { state.centerInstalled = true }
            return !state.centerInstalled
        }
        guard first else { return }
        let center = platform.notificationCenter
        center.setCategories([MessageCategory.category(languages: platform.preferredLanguages())])
        center.becomeDelegate(
            PNNotificationCenterEvents(
                willPresent: { [weak self] notification, completion in
                    guard let self else { return completion([]) }
                    self.handleWillPresentNotification(notification, completionHandler: completion)
                },
                didReceive: { [weak self] response, completion in
                    guard let self else { return completion() }
                    self.handleNotificationResponse(response, completionHandler: completion)
                }))
    }

    /// The SDK's categories: `MessageCategory` and those of the installed products, their words
    /// in the device's language.
    var sdkCategories: [PNNotificationCategory] {
        [MessageCategory.category(languages: platform.preferredLanguages())]
            + state.withLock { $0.products }.flatMap(\.notificationCategories)
    }

    /// Sets the categories again once the products are installed, when they add any: iOS keeps
    /// only the last set (rule 4), so the products' categories join `MessageCategory` instead of
    /// replacing it. `installNotificationCenter()` set `MessageCategory` alone before, so a tap
    /// that launched the app is not lost while the products install.
    func installProductCategories() {
        let categories = sdkCategories
        guard categories.count > 1 else { return }
        platform.notificationCenter.setCategories(categories)
    }

    /// Decides how a notification that arrived in the foreground is presented; a private push is
    /// decided on the standard payload inside it. Apps that keep
    /// their own notification-center delegate call this from `willPresent`; the SDK then behaves
    /// as if it were the delegate. `completionHandler` is called before this returns.
    public func handleWillPresentNotification(
        _ notification: PNNotification,
        completionHandler: @escaping @Sendable (PNPresentationOptions) -> Void
    ) {
        notePresentedPayload(notification.userInfo)
        let info = CometChatNotificationInfo(rawPayload: openedPayload(notification.userInfo))
        if MessageChangeApplier.isEditReplacement(notification) {
            // The SDK's own quiet replacement of an edited message: into the list, no banner,
            // no sound, no badge, no receipt.
            platform.logger.log(.debug, "Foreground edit of a chat notification: options list.")
            return completionHandler([.list])
        }
        if changeApplier.isDeleted(info) {
            platform.logger.log(.debug, "Foreground chat notification of a deleted message: hidden.")
            return completionHandler([])
        }
        let decision = foregroundPolicy.decide(info)
        platform.logger.log(
            .debug,
            "Foreground \(info.kind.name) notification: \(decision.reason.rawValue), "
                + "options \(decision.options.names).")
        applyBadge(decision.badge)
        handDelivery(info, inForeground: true)
        completionHandler(decision.options)
    }

    /// Handles the user's response to a notification, with the decrypted payload of a private
    /// push: a tap is routed to the delegate (held
    /// until one is set), a reply typed in the Reply action goes to the Chat product. Apps that
    /// keep their own notification-center delegate call this from `didReceive`. A product's own
    /// notification (the Calls product's missed call) goes to that product.
    /// `completionHandler` is called once the SDK is done (after a reply is sent).
    public func handleNotificationResponse(
        _ response: PNNotificationResponse,
        completionHandler: @escaping @Sendable () -> Void
    ) {
        let info = CometChatNotificationInfo(rawPayload: openedPayload(response.notification.userInfo))
        // A product's own notification (the Calls product's missed call) goes to that product.
        if state.withLock({ $0.products }).contains(where: { $0.handleResponse(response, info: info, completion: completionHandler) }) {
            return
        }
        if response.action == .open { notePresentedPayload(response.notification.userInfo) }
        switch response.action {
        case .dismiss:
            completionHandler()
        case .textInput(_, let text):
            let products = state.withLock { $0.products }
            if info.kind == .chat, products.contains(where: { $0.handleReply(text, to: info, completion: completionHandler) }) {
                return
            }
            platform.logger.log(
                .info,
                "A reply to a \(info.kind.name) notification reached no product; "
                    + "it goes to didTapNotification(_:).")
            deliverTap(info.withReplyText(text), route: .other, completion: completionHandler)
        case .open, .custom:
            applyBadge(deliveryBadge(info))
            if response.action == .open, info.pushId != nil, isSelfHosted {
                for product in state.withLock({ $0.products }) { product.handleOpened(info) }
            }
            let route = TapRoute(info)
            if route == .campaign {
                for product in state.withLock({ $0.products }) { product.handleCampaignTap(info) }
            }
            deliverTap(info, route: route, completion: completionHandler)
        }
    }

    /// Routes a tap on the callback queue, or holds it until a delegate is set (rule 3).
    private func deliverTap(_ info: CometChatNotificationInfo, route: TapRoute, completion: (@Sendable () -> Void)?) {
        guard delegate != nil else {
            holdTap(info)
            completion?()
            return
        }
        tracker.begin()
        let tracker = self.tracker
        platform.callbackQueue.async { [weak self] in
            defer {
                completion?()
                tracker.end()
            }
            guard let self else { return }
            guard let delegate = self.delegate else {
                self.holdTap(info)
                return
            }
            self.route(info, as: route, to: delegate)
        }
    }

    private func holdTap(_ info: CometChatNotificationInfo) {
        let observe = notifications.state.withLock { state -> Bool in
            state.heldTaps.append(info)
            defer { state.observingDelegate = true }
            return !state.observingDelegate
        }
        if observe {
            state.withLock { $0.delegateObservers.append { [weak self] in self?.deliverHeldTaps() } }
        }
        platform.logger.log(
            .info,
            "A \(info.kind.name) notification was tapped before a delegate was set; "
                + "it is delivered once one is.")
        // The delegate may have been set between the check and the hold.
        if delegate != nil { deliverHeldTaps() }
    }

    /// Delivers the taps held while there was no delegate, each exactly once.
    private func deliverHeldTaps() {
        for info in notifications.takeHeldTaps() {
            let route: TapRoute = info.replyText == nil ? TapRoute(info) : .other
            deliverTap(info, route: route, completion: nil)
        }
    }

    /// Runs on the callback queue.
    private func route(_ info: CometChatNotificationInfo, as route: TapRoute, to delegate: CometChatPushNotificationsDelegate) {
        switch route {
        case .chat:
            let products = state.withLock { $0.products }
            if products.contains(where: { $0.handleChatTap(info, delegate: delegate) }) { return }
            if !delegate.pnDidTapNotification(info) { delegate.pnNavigateToDefaultScreen() }
        case .campaign:
            if !delegate.pnNavigateToNotificationsFeed() { delegate.pnNavigateToDefaultScreen() }
        case .other:
            if !delegate.pnDidTapNotification(info) { delegate.pnNavigateToDefaultScreen() }
        }
    }
}
