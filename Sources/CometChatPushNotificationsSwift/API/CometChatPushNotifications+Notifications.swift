import Foundation

extension CometChatPushNotifications {
    /// The category identifier of chat notifications, with the Reply action. `initialize` sets
    /// the app's categories to this one; apps that have their own add it back with theirs.
    public static let messageCategoryIdentifier = "MessageCategory"

    /// The identifier of the text-input Reply action of ``messageCategoryIdentifier``.
    public static let replyActionIdentifier = "REPLY_ACTION"

    /// Reads the sender, receiver, conversation, text, ids and unread count out of a push
    /// payload (`userInfo`, or the PushKit dictionary).
    ///
    /// Returns `nil` only when `payload` is not dictionary-like at all (a dictionary, or JSON
    /// text or data holding an object). Any dictionary gives an info; fields the payload lacks,
    /// or carries with an unusable type, are `nil`.
    public static func parseNotificationInfo(from payload: Any) -> CometChatNotificationInfo? {
        guard let dictionary = PayloadReader.dictionary(payload) else { return nil }
        return CometChatNotificationInfo(rawPayload: dictionary)
    }

    /// Whether `userInfo` is a campaign (engagement) push sent from the dashboard.
    public static func isCampaignNotification(userInfo: [AnyHashable: Any]) -> Bool {
        NotificationParser.parse(userInfo).kind == .campaign
    }

    /// Marks the one-to-one conversation with `userId` as on screen: its notifications are not
    /// shown while the app is in the foreground. Call it in the messages screen's
    /// `viewWillAppear`, and ``clearActiveConversation()`` in `viewWillDisappear`. A blank id
    /// clears it.
    ///
    /// With a self-hosted service (``PNConfiguration/clientHost``) and a user logged in, the SDK
    /// also tells the service, in the background, that this device shows the conversation, while
    /// the app is in the foreground: in an app with `holdWhileActiveSeconds`, the service then
    /// holds its chat pushes to the user's other devices (see <doc:HandlingNotifications>).
    public func setActiveConversation(userId: String) {
        setActive(userId.trimmingCharacters(in: .whitespacesAndNewlines), PNActiveConversation.user)
    }

    /// Marks the group conversation `groupId` as on screen: its notifications are not shown
    /// while the app is in the foreground. A blank id clears it. A self-hosted service is told,
    /// as for ``setActiveConversation(userId:)``.
    public func setActiveConversation(groupId: String) {
        setActive(groupId.trimmingCharacters(in: .whitespacesAndNewlines), PNActiveConversation.group)
    }

    /// No conversation is on screen any more; a self-hosted service that was told of one is
    /// told that it ended.
    public func clearActiveConversation() {
        notifications.state.withLock { $0.activeConversation = nil }
        activity.trigger()
    }

    private func setActive(_ id: String, _ make: (String) -> PNActiveConversation) {
        notifications.state.withLock { $0.activeConversation = id.isEmpty ? nil : make(id) }
        activity.trigger()
    }

    /// What a self-hosted service should hold from this device, once the calls made so far are
    /// applied: the conversation on screen while the app is not in the background, or none;
    /// `nil` without a self-hosted service or a session (nothing is reported then).
    func activityTarget() async -> ActivityReporter.Target? {
        await afterQueuedWork()
        guard isSelfHosted else { return nil }
        let applied = lifecycle.state
        guard let api = applied.api, let session = applied.session else { return nil }
        let inBackground = platform.application.applicationState() == .background
        var conversationId: String?
        if !inBackground, let conversation = activeConversation {
            conversationId = ActivityWire.conversationId(conversation, ownUID: session.uid)
            if conversationId == nil {
                platform.logger.log(
                    .debug, "The conversation on screen is not reported: without the user's uid, or an id the service does not take.")
            }
        }
        return ActivityReporter.Target(api: api, session: session, conversationId: conversationId, inBackground: inBackground)
    }

    /// The conversation on screen, if any.
    @_spi(PNProducts)
    public var activeConversation: PNActiveConversation? { notifications.state.withLock { $0.activeConversation } }

    /// Hands over a silent push from
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`. A private push
    /// (one carrying `enc`, from a service in private mode) is decrypted first and handled as
    /// the standard push inside it. The badge follows
    /// its `unreadMessageCount` (with `enableBadgeCount` on), and the Chat product marks chat
    /// messages and campaign pushes delivered. A `type: read` push from a self-hosted service
    /// (the conversation was read on another device) removes that conversation's notifications
    /// from Notification Center and sets the badge to its `unreadCount`. A message's edit or
    /// deletion (`action: edited` or `deleted`) replaces its notification quietly or removes it;
    /// neither presents anything or sends a receipt.
    ///
    /// Prefer ``handleBackgroundNotification(userInfo:completion:)``: iOS may suspend the app as
    /// soon as the fetch completion handler runs (rule 26), and this form cannot tell you when
    /// the receipt has been sent.
    public func handleBackgroundNotification(userInfo: [AnyHashable: Any]) {
        handleBackgroundNotification(userInfo: userInfo) { _ in }
    }

    /// Hands over a silent push and calls `completion` (on the main queue) once the badge is set
    /// and the delivered receipt has been sent or given up (within about 25 s), holding a
    /// background task meanwhile. For a `type: read` push it calls `completion` once the read
    /// conversation's notifications are removed and the badge is set. Pass the result to iOS's
    /// fetch completion handler:
    ///
    /// ```swift
    /// func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
    ///                  fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
    ///     CometChatPushNotifications.shared.handleBackgroundNotification(userInfo: userInfo) { result in
    ///         completionHandler(UIBackgroundFetchResult(rawValue: UInt(result.rawValue)) ?? .newData)
    ///     }
    /// }
    /// ```
    public func handleBackgroundNotification(
        userInfo: [AnyHashable: Any], completion: @escaping (PNBackgroundFetchResult) -> Void
    ) {
        // Not @Sendable, so iOS's fetch completion handler can be called from it as it is; the SDK
        // calls it once, on the callback queue.
        let completion = FetchCompletion(completion).call
        guard configuration != nil else {
            onCallbackQueue { completion(.failed) }
            return
        }
        // A private push (issue 28): its standard payload, decrypted, is handled as such.
        let userInfo = openedPayload(userInfo)
        let info = CometChatNotificationInfo(rawPayload: userInfo)
        if let read = ReadSyncPush(userInfo) {
            handleChangePush(MessageChange(read), completion: completion)
            return
        }
        if let change = MessageChange(actionPush: userInfo) {
            handleChangePush(change, completion: completion)
            return
        }
        guard info.kind == .chat || info.kind == .campaign else {
            onCallbackQueue { completion(.noData) }
            return
        }
        if changeApplier.isDeleted(info), let conversationId = info.conversationId, let messageId = info.messageId {
            // The message's deletion overtook it: no receipt, and its notification goes.
            platform.logger.log(.info, "A push of a message deleted before it arrived: its notification is removed.")
            handleChangePush(MessageChange(kind: .deleted, conversationId: conversationId, messageId: messageId), completion: completion)
            return
        }
        applyBadge(deliveryBadge(info))
        let products = state.withLock { $0.products }
        let time = PNBackgroundTime(application: platform.application)
        let done = PNLocked(false)
        let finish: @Sendable () -> Void = { [weak self, tracker] in
            guard
                done.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            time.end()
            if let self { self.onCallbackQueue { completion(.newData) } } else { completion(.newData) }
            tracker.end()
        }
        tracker.begin()
        Task {
            await time.begin(name: "CometChat silent push") { finish() }
            await withTaskGroup(of: Void.self) { group in
                for product in products {
                    group.addTask {
                        await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                            product.handleDelivery(info, inForeground: false) { resume.resume() }
                        }
                    }
                }
            }
            finish()
        }
    }

    /// The policy for the current configuration and active conversation.
    @_spi(PNProducts)
    public var foregroundPolicy: PNForegroundPolicy {
        let config = configuration
        return PNForegroundPolicy(
            showInAppNotifications: config?.showInAppNotifications ?? true,
            enableBadgeCount: config?.enableBadgeCount ?? false,
            activeConversation: activeConversation,
            preferences: notifications.state.withLock { $0.preferences }, now: platform.clock.now())
    }

    /// The badge a delivered or tapped CometChat push asks for, if badges are on.
    func deliveryBadge(_ info: CometChatNotificationInfo) -> Int? {
        guard info.kind == .chat || info.kind == .campaign else { return nil }
        return foregroundPolicy.badgeCount(info)
    }

    /// Sets the app icon badge on the callback queue.
    func applyBadge(_ count: Int?) {
        guard let count else { return }
        let application = platform.application
        onCallbackQueue { application.setBadgeCount(count) }
    }

    /// Lets the products see a delivered chat or campaign push (delivered receipts).
    func handDelivery(_ info: CometChatNotificationInfo, inForeground: Bool) {
        guard info.kind == .chat || info.kind == .campaign else { return }
        for product in state.withLock({ $0.products }) { product.handleDelivery(info, inForeground: inForeground) {} }
    }
}

extension CometChatPushNotifications {
    /// 1.x's hook for changing notification content. Still accepted so 1.x code compiles, but it
    /// has no effect in 2.0 (setting it logs a warning): change the content in
    /// `finalizeContent(_:)` of your Notification Service Extension instead.
    @available(
        *, deprecated,
        message: "No effect in 2.0: change the content in finalizeContent(_:) of your CometChatNotificationServiceExtension subclass."
    )
    public var notificationContentModifier: Any? {
        get { nil }
        set {
            guard newValue != nil else { return }
            platform.logger.log(
                .warning,
                "notificationContentModifier has no effect in 2.0: change the content in finalizeContent(_:) of the Notification Service Extension."
            )
        }
    }
}

/// iOS's fetch completion handler, carried to the callback queue (it may be called from any
/// thread, and is called exactly once).
private struct FetchCompletion: @unchecked Sendable {
    let body: (PNBackgroundFetchResult) -> Void
    init(_ body: @escaping (PNBackgroundFetchResult) -> Void) { self.body = body }
    var call: @Sendable (PNBackgroundFetchResult) -> Void { { [self] in body($0) } }
}
