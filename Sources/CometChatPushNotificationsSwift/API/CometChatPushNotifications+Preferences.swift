import Foundation

/// Notification preferences and read state, kept by a self-hosted push service.
///
/// These calls need ``PNConfiguration/clientHost``: CometChat's hosted client API has no such
/// calls, so without it they fail with ``PNError/Code-swift.enum/notSupported`` and send
/// nothing. Completions are called on the main queue; the preferences calls answer the user's whole
/// preferences as the service now holds them.
///
/// Each call has an `async` form that ends in `AndWait` (``getPreferences()`` keeps its name):
/// the short forms stay plain calls in any context, since apps usually make them and forget.
extension CometChatPushNotifications {
    /// Mutes the one-to-one conversation with `userId` until `until` (`nil`: forever). The
    /// service then sends no chat push from that user to any of the user's devices (calls still
    /// ring); the SDK hides a push for it that arrives in the foreground.
    public func setConversationMuted(
        userId: String, until: Date?, completion: (@Sendable (PNResult<PNNotificationPreferences>) -> Void)? = nil
    ) {
        preferencesCall(muteRequest(.user, userId, until: until), completion)
    }

    /// ``setConversationMuted(userId:until:completion:)``, awaited: the preferences the service
    /// now holds.
    @discardableResult
    public func setConversationMutedAndWait(userId: String, until: Date?) async throws -> PNNotificationPreferences {
        try await preferencesCall(muteRequest(.user, userId, until: until))
    }

    /// Mutes group `groupId` until `until` (`nil`: forever): no chat pushes from it (calls still
    /// ring).
    public func setConversationMuted(
        groupId: String, until: Date?, completion: (@Sendable (PNResult<PNNotificationPreferences>) -> Void)? = nil
    ) {
        preferencesCall(muteRequest(.group, groupId, until: until), completion)
    }

    /// ``setConversationMuted(groupId:until:completion:)``, awaited.
    @discardableResult
    public func setConversationMutedAndWait(groupId: String, until: Date?) async throws -> PNNotificationPreferences {
        try await preferencesCall(muteRequest(.group, groupId, until: until))
    }

    /// Ends the mute of the one-to-one conversation with `userId`.
    public func unmuteConversation(userId: String, completion: (@Sendable (PNResult<PNNotificationPreferences>) -> Void)? = nil) {
        preferencesCall(unmuteRequest(.user, userId), completion)
    }

    /// ``unmuteConversation(userId:completion:)``, awaited.
    @discardableResult
    public func unmuteConversationAndWait(userId: String) async throws -> PNNotificationPreferences {
        try await preferencesCall(unmuteRequest(.user, userId))
    }

    /// Ends the mute of group `groupId`.
    public func unmuteConversation(groupId: String, completion: (@Sendable (PNResult<PNNotificationPreferences>) -> Void)? = nil) {
        preferencesCall(unmuteRequest(.group, groupId), completion)
    }

    /// ``unmuteConversation(groupId:completion:)``, awaited.
    @discardableResult
    public func unmuteConversationAndWait(groupId: String) async throws -> PNNotificationPreferences {
        try await preferencesCall(unmuteRequest(.group, groupId))
    }

    /// Sets which pushes of group `groupId` the user gets: all, only messages that mention the
    /// user, or none.
    public func setGroupNotificationLevel(
        _ level: PNGroupNotificationLevel, groupId: String,
        completion: (@Sendable (PNResult<PNNotificationPreferences>) -> Void)? = nil
    ) {
        preferencesCall(groupLevelRequest(level, groupId), completion)
    }

    /// ``setGroupNotificationLevel(_:groupId:completion:)``, awaited.
    @discardableResult
    public func setGroupNotificationLevelAndWait(
        _ level: PNGroupNotificationLevel, groupId: String
    ) async throws -> PNNotificationPreferences {
        try await preferencesCall(groupLevelRequest(level, groupId))
    }

    /// Sets the quiet hours: every day from `start` to `end` (their `hour` and `minute`; a
    /// window may cross midnight), in the time zone of the user's most recent token
    /// registration, chat pushes arrive quietly (in Notification Center, no sound, the screen
    /// stays dark). Calls still ring unless `includeCalls`.
    public func setQuietHours(
        start: DateComponents, end: DateComponents, includeCalls: Bool,
        completion: (@Sendable (PNResult<PNNotificationPreferences>) -> Void)? = nil
    ) {
        preferencesCall(quietHoursRequest(start: start, end: end, includeCalls: includeCalls), completion)
    }

    /// ``setQuietHours(start:end:includeCalls:completion:)``, awaited.
    @discardableResult
    public func setQuietHoursAndWait(
        start: DateComponents, end: DateComponents, includeCalls: Bool
    ) async throws -> PNNotificationPreferences {
        try await preferencesCall(quietHoursRequest(start: start, end: end, includeCalls: includeCalls))
    }

    /// Turns the quiet hours off.
    public func clearQuietHours(completion: (@Sendable (PNResult<PNNotificationPreferences>) -> Void)? = nil) {
        preferencesCall(Self.clearQuietHoursRequest, completion)
    }

    /// ``clearQuietHours(completion:)``, awaited.
    @discardableResult
    public func clearQuietHoursAndWait() async throws -> PNNotificationPreferences {
        try await preferencesCall(Self.clearQuietHoursRequest)
    }

    /// Reads the user's preferences from the service. The SDK keeps the answer (and that of
    /// every call above) to hide pushes for muted conversations in the foreground.
    public func getPreferences() async throws -> PNNotificationPreferences {
        try await preferencesCall(Self.getPreferencesRequest)
    }

    /// Reads the user's preferences from the service, as ``getPreferences()`` does, and hands
    /// them to `completion`.
    public func getPreferences(completion: @escaping @Sendable (PNResult<PNNotificationPreferences>) -> Void) {
        preferencesCall(Self.getPreferencesRequest, completion)
    }

    /// Marks the one-to-one conversation with `userId` read: removes its notifications from
    /// Notification Center here, sets the badge to `unreadCount` (when given and
    /// `enableBadgeCount` is on), and asks the service to do the same on the user's other
    /// devices (a background push; see <doc:ReadStateAndPreferences> for what iOS guarantees).
    ///
    /// - Parameters:
    ///   - userId: the other user's uid.
    ///   - unreadCount: the user's unread count after this read (the service stores no
    ///     messages, so it cannot count), or `nil` to leave badges as they are.
    ///   - completion: the service's answer; ``PNError/Code-swift.enum/notSupported`` without
    ///     `clientHost` (the local part is done all the same).
    public func markConversationRead(
        userId: String, unreadCount: Int? = nil, completion: (@Sendable (PNResult<Void>) -> Void)? = nil
    ) {
        markRead(.user, userId, unreadCount: unreadCount, completion)
    }

    /// ``markConversationRead(userId:unreadCount:completion:)``, awaited: returns once the
    /// local part is done and the service has answered; throws the service's error
    /// (``PNError/Code-swift.enum/notSupported`` without `clientHost`, after the local part).
    public func markConversationReadAndWait(userId: String, unreadCount: Int? = nil) async throws {
        try await markRead(.user, userId, unreadCount: unreadCount)
    }

    /// Marks group `groupId` read; see ``markConversationRead(userId:unreadCount:completion:)``.
    public func markConversationRead(
        groupId: String, unreadCount: Int? = nil, completion: (@Sendable (PNResult<Void>) -> Void)? = nil
    ) {
        markRead(.group, groupId, unreadCount: unreadCount, completion)
    }

    /// ``markConversationRead(groupId:unreadCount:completion:)``, awaited.
    public func markConversationReadAndWait(groupId: String, unreadCount: Int? = nil) async throws {
        try await markRead(.group, groupId, unreadCount: unreadCount)
    }

    /// Whether the SDK talks to a self-hosted service (`clientHost` set): only then does it make
    /// the calls CometChat's hosted API lacks (preferences, read, opened) and echo push ids.
    @_spi(PNProducts)
    public var isSelfHosted: Bool { configuration.map(Self.selfHosted) ?? false }

    /// Whether the app's configuration, as `initialize` saved it in the App Group, names a
    /// self-hosted service: the extension echoes push ids only then.
    @_spi(PNProducts)
    public func sharedIsSelfHosted(appGroupID: String) -> Bool {
        PNConfiguration.isSelfHosted(clientHost: TokenStore(store: platform.sharedStore(appGroupID)).savedConfiguration?.clientHost)
    }

    static func selfHosted(_ config: PNConfiguration) -> Bool { config.isSelfHosted }

    /// The last preferences a preferences call answered, or `nil`.
    @_spi(PNProducts)
    public var lastKnownPreferences: PNNotificationPreferences? { notifications.state.withLock { $0.preferences } }

    // MARK: Calls

    /// A preferences call: its name (for logs and errors) and its request, `nil` when its
    /// arguments are unusable (a blank id, an invalid time).
    private struct PreferencesRequest: @unchecked Sendable {
        // @unchecked: `json` holds JSON values only and is never mutated.
        var name: String
        var method = ""
        var path = ""
        var json: [String: Any]?
        var usable = true

        init(_ name: String, _ request: (String, String, [String: Any]?)?) {
            self.name = name
            if let request { (method, path, json) = request } else { usable = false }
        }
    }

    private func muteRequest(_ type: CometChatReceiverType, _ rawId: String, until: Date?) -> PreferencesRequest {
        let id = rawId.trimmingCharacters(in: .whitespacesAndNewlines)
        let label = type == .group ? "groupId" : "userId"
        return PreferencesRequest("setConversationMuted(\(label):until:)", id.isEmpty ? nil : PreferencesWire.mute(type, id, until: until))
    }

    private func unmuteRequest(_ type: CometChatReceiverType, _ rawId: String) -> PreferencesRequest {
        let id = rawId.trimmingCharacters(in: .whitespacesAndNewlines)
        let label = type == .group ? "groupId" : "userId"
        return PreferencesRequest("unmuteConversation(\(label):)", id.isEmpty ? nil : PreferencesWire.unmute(type, id))
    }

    private func groupLevelRequest(_ level: PNGroupNotificationLevel, _ rawId: String) -> PreferencesRequest {
        let id = rawId.trimmingCharacters(in: .whitespacesAndNewlines)
        return PreferencesRequest("setGroupNotificationLevel(_:groupId:)", id.isEmpty ? nil : PreferencesWire.groupLevel(level, id))
    }

    private func quietHoursRequest(start: DateComponents, end: DateComponents, includeCalls: Bool) -> PreferencesRequest {
        PreferencesRequest(
            "setQuietHours(start:end:includeCalls:)",
            PreferencesWire.quietHours(start: start, end: end, includeCalls: includeCalls))
    }

    private static var clearQuietHoursRequest: PreferencesRequest {
        PreferencesRequest("clearQuietHours()", ("DELETE", PreferencesWire.base + "/quiet-hours", nil))
    }

    private static var getPreferencesRequest: PreferencesRequest {
        PreferencesRequest("getPreferences()", ("GET", PreferencesWire.base, nil))
    }

    /// The completion-handler form of a preferences call.
    private func preferencesCall(
        _ request: PreferencesRequest, _ completion: (@Sendable (PNResult<PNNotificationPreferences>) -> Void)?
    ) {
        switch preferencesWork(request) {
        case .success(let work): tracked(work, completion: completion)
        case .failure(let error): fail(completion, error)
        }
    }

    /// The `async` form of a preferences call.
    private func preferencesCall(_ request: PreferencesRequest) async throws -> PNNotificationPreferences {
        let work = try preferencesWork(request).get()
        return try await tracked { await work() }.get()
    }

    /// Checks a preferences call at once (initialised, self-hosted, usable arguments) and
    /// returns the work that sends it after the calls queued before it and keeps the answer.
    private func preferencesWork(
        _ request: PreferencesRequest
    ) -> PNResult<@Sendable () async -> PNResult<PNNotificationPreferences>> {
        let name = request.name
        let config: PNConfiguration
        switch initialisedConfiguration() {
        case .success(let accepted): config = accepted
        case .failure(let error): return .failure(error)
        }
        guard Self.selfHosted(config) else {
            platform.logger.log(.info, "\(name) needs a self-hosted push service (clientHost); nothing was sent.")
            return .failure(.notSupported(name))
        }
        guard request.usable else {
            return .failure(PNError(code: .serverError, message: "\(name) was given a blank id or an invalid time; nothing was sent."))
        }
        return .success { [self] in
            await afterQueuedWork()
            let result = await sendClientRequest(request.method, request.path, json: request.json).flatMap {
                data -> PNResult<PNNotificationPreferences> in
                guard let preferences = PreferencesWire.preferences(data) else {
                    return .failure(PNError(code: .serverError, message: "The service's answer to \(name) holds no preferences."))
                }
                return .success(preferences)
            }
            switch result {
            case .success(let preferences):
                notifications.state.withLock { $0.preferences = preferences }
                platform.logger.log(.debug, "\(name): \(preferences.description).")
            case .failure(let error):
                platform.logger.log(.warning, "\(name) failed: \(error.code.name) \(error.message)")
            }
            return result
        }
    }

    /// The completion-handler form of a read mark.
    private func markRead(
        _ type: CometChatReceiverType, _ rawId: String, unreadCount: Int?, _ completion: (@Sendable (PNResult<Void>) -> Void)?
    ) {
        switch markReadWork(type, rawId, unreadCount: unreadCount) {
        case .success(let work): tracked(work, completion: completion)
        case .failure(let error): fail(completion, error)
        }
    }

    /// The `async` form of a read mark.
    private func markRead(_ type: CometChatReceiverType, _ rawId: String, unreadCount: Int?) async throws {
        let work = try markReadWork(type, rawId, unreadCount: unreadCount).get()
        try await tracked { await work() }.get()
    }

    /// Checks a read mark at once and sets the badge; returns the work that tells the service
    /// (when self-hosted) and removes the conversation's notifications.
    private func markReadWork(
        _ type: CometChatReceiverType, _ rawId: String, unreadCount: Int?
    ) -> PNResult<@Sendable () async -> PNResult<Void>> {
        let name = "markConversationRead(\(type.wireName == "group" ? "groupId" : "userId"):)"
        let config: PNConfiguration
        switch initialisedConfiguration() {
        case .success(let accepted): config = accepted
        case .failure(let error): return .failure(error)
        }
        let id = rawId.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !id.isEmpty else {
            return .failure(PNError(code: .serverError, message: "\(name) was given a blank id; nothing was done."))
        }
        if config.enableBadgeCount, let unreadCount { applyBadge(unreadCount) }
        let selfHosted = Self.selfHosted(config)
        return .success { [self] in
            var conversationId: String?
            let result: PNResult<Void>
            if selfHosted {
                await afterQueuedWork()
                let request = PreferencesWire.read(type, id, unreadCount: unreadCount)
                let answer = await sendClientRequest(request.0, request.1, json: request.2)
                if case .success(let data) = answer {
                    let read = PreferencesWire.readAnswer(data)
                    conversationId = read.conversationId
                    // A service that counts the badge answers the user's total: without a count
                    // of the app's own, this device's badge follows it.
                    if config.enableBadgeCount, unreadCount == nil, let total = read.unreadCount { applyBadge(total) }
                }
                result = answer.map { _ in () }
            } else {
                platform.logger.log(.info, "\(name) needs a self-hosted push service (clientHost) to reach other devices.")
                result = .failure(.notSupported(name))
            }
            let readConversation = conversationId
            let removed = await changeApplier.removeDelivered { notification in
                if let conversationId = readConversation, ReadSyncPush.belongs(notification, to: conversationId) { return true }
                let info = CometChatNotificationInfo(rawPayload: notification.userInfo)
                guard info.kind == .chat else { return false }
                switch type {
                case .group: return info.receiverType == .group && info.receiverId == id
                case .user, .unknown: return info.receiverType != .group && info.senderUid == id
                }
            }
            platform.logger.log(.debug, "\(name): removed \(removed) notification(s).")
            return result
        }
    }

}
