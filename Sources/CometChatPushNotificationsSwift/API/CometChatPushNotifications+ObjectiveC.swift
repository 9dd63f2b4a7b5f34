#if canImport(ObjectiveC)
import Foundation

/// Objective-C forms of the calls whose Swift completions take a `PNResult`, which Objective-C
/// cannot represent. They are unavailable in Swift, where the `PNResult` forms are used.
extension CometChatPushNotifications {
    /// `registerDeviceToken(_:completion:)` for Objective-C: the completion gets the token as
    /// lowercase hex, or the error.
    @available(swift, obsoleted: 1)
    @objc(registerDeviceToken:completion:)
    public func objcRegisterDeviceToken(_ deviceToken: Data, completion: (@Sendable (String?, PNError?) -> Void)?) {
        registerDeviceToken(deviceToken, completion: completion.map(Self.bridge))
    }

    /// `registerFCMToken(_:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(registerFCMToken:completion:)
    public func objcRegisterFCMToken(_ token: String, completion: (@Sendable (String?, PNError?) -> Void)?) {
        registerFCMToken(token, completion: completion.map(Self.bridge))
    }

    /// `registerTokens(completion:)` for Objective-C: the platforms registered, as
    /// `CometChatPushTokenPlatform` raw values, or the error.
    @available(swift, obsoleted: 1)
    @objc(registerTokensWithCompletion:)
    public func objcRegisterTokens(completion: (@Sendable ([NSNumber]?, PNError?) -> Void)?) {
        registerTokens(completion: completion.map(Self.bridgePlatforms))
    }

    /// `unregisterTokens(completion:)` for Objective-C: `nil` on success.
    @available(swift, obsoleted: 1)
    @objc(unregisterTokensWithCompletion:)
    public func objcUnregisterTokens(completion: (@Sendable (PNError?) -> Void)?) {
        unregisterTokens(completion: completion.map(Self.bridgeVoid))
    }

    /// `clearSession(completion:)` for Objective-C: `nil` on success.
    @available(swift, obsoleted: 1)
    @objc(clearSessionWithCompletion:)
    public func objcClearSession(completion: (@Sendable (PNError?) -> Void)?) {
        clearSession(completion: completion.map(Self.bridgeVoid))
    }

    /// `verifyPushSetup(completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(verifyPushSetupWithCompletion:)
    public func objcVerifyPushSetup(completion: @escaping @Sendable ([NSNumber]?, PNError?) -> Void) {
        verifyPushSetup(completion: Self.bridgePlatforms(completion))
    }

    /// `ensureRingReady(_:)` for Objective-C: the readiness, or the error (then the readiness
    /// is ``PNRingReadiness/ready`` and must be ignored).
    @available(swift, obsoleted: 1)
    @objc(ensureRingReady:)
    public func objcEnsureRingReady(_ completion: @escaping @Sendable (PNRingReadiness, PNError?) -> Void) {
        ensureRingReady { result in
            switch result {
            case .success(let readiness): completion(readiness, nil)
            case .failure(let error): completion(.ready, error)
            }
        }
    }

    /// `setConversationMuted(userId:until:completion:)` for Objective-C: the preferences, or
    /// the error.
    @available(swift, obsoleted: 1)
    @objc(setConversationMutedWithUserId:until:completion:)
    public func objcSetConversationMuted(
        userId: String, until: Date?, completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?
    ) {
        setConversationMuted(userId: userId, until: until, completion: completion.map(Self.bridgePreferences))
    }

    /// `setConversationMuted(groupId:until:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setConversationMutedWithGroupId:until:completion:)
    public func objcSetConversationMuted(
        groupId: String, until: Date?, completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?
    ) {
        setConversationMuted(groupId: groupId, until: until, completion: completion.map(Self.bridgePreferences))
    }

    /// `unmuteConversation(userId:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(unmuteConversationWithUserId:completion:)
    public func objcUnmuteConversation(userId: String, completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?) {
        unmuteConversation(userId: userId, completion: completion.map(Self.bridgePreferences))
    }

    /// `unmuteConversation(groupId:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(unmuteConversationWithGroupId:completion:)
    public func objcUnmuteConversation(groupId: String, completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?) {
        unmuteConversation(groupId: groupId, completion: completion.map(Self.bridgePreferences))
    }

    /// `setGroupNotificationLevel(_:groupId:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setGroupNotificationLevel:groupId:completion:)
    public func objcSetGroupNotificationLevel(
        _ level: PNGroupNotificationLevel, groupId: String,
        completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?
    ) {
        setGroupNotificationLevel(level, groupId: groupId, completion: completion.map(Self.bridgePreferences))
    }

    /// `setQuietHours(start:end:includeCalls:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setQuietHoursWithStart:end:includeCalls:completion:)
    public func objcSetQuietHours(
        start: DateComponents, end: DateComponents, includeCalls: Bool,
        completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?
    ) {
        setQuietHours(start: start, end: end, includeCalls: includeCalls, completion: completion.map(Self.bridgePreferences))
    }

    /// `clearQuietHours(completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(clearQuietHoursWithCompletion:)
    public func objcClearQuietHours(completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?) {
        clearQuietHours(completion: completion.map(Self.bridgePreferences))
    }

    /// `getPreferences(completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(getPreferencesWithCompletion:)
    public func objcGetPreferences(completion: @escaping @Sendable (PNNotificationPreferences?, PNError?) -> Void) {
        getPreferences(completion: Self.bridgePreferences(completion))
    }

    /// `markConversationRead(userId:unreadCount:completion:)` for Objective-C: `unreadCount` is
    /// an `NSNumber` or `nil`; the completion gets `nil` on success.
    @available(swift, obsoleted: 1)
    @objc(markConversationReadWithUserId:unreadCount:completion:)
    public func objcMarkConversationRead(
        userId: String, unreadCount: NSNumber?, completion: (@Sendable (PNError?) -> Void)?
    ) {
        markConversationRead(userId: userId, unreadCount: unreadCount?.intValue, completion: completion.map(Self.bridgeVoid))
    }

    /// `markConversationRead(groupId:unreadCount:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(markConversationReadWithGroupId:unreadCount:completion:)
    public func objcMarkConversationRead(
        groupId: String, unreadCount: NSNumber?, completion: (@Sendable (PNError?) -> Void)?
    ) {
        markConversationRead(groupId: groupId, unreadCount: unreadCount?.intValue, completion: completion.map(Self.bridgeVoid))
    }

    private static func bridgePreferences(
        _ completion: @escaping @Sendable (PNNotificationPreferences?, PNError?) -> Void
    ) -> @Sendable (PNResult<PNNotificationPreferences>) -> Void {
        { result in
            switch result {
            case .success(let preferences): completion(preferences, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    private static func bridge(
        _ completion: @escaping @Sendable (String?, PNError?) -> Void
    ) -> @Sendable (PNResult<String>) -> Void {
        { result in
            switch result {
            case .success(let value): completion(value, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    private static func bridgeVoid(_ completion: @escaping @Sendable (PNError?) -> Void) -> @Sendable (PNResult<Void>) -> Void {
        { result in
            switch result {
            case .success: completion(nil)
            case .failure(let error): completion(error)
            }
        }
    }

    private static func bridgePlatforms(
        _ completion: @escaping @Sendable ([NSNumber]?, PNError?) -> Void
    ) -> @Sendable (PNResult<[CometChatPushTokenPlatform]>) -> Void {
        { result in
            switch result {
            case .success(let platforms): completion(platforms.map { NSNumber(value: $0.rawValue) }, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }
}
#endif
