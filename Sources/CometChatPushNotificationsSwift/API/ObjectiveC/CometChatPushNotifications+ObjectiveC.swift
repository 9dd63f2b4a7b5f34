#if canImport(ObjectiveC)
import Foundation

// The Objective-C surface of `CometChatPushNotifications`: each method forwards to the Swift
// method it names, under the selector the reference guide and docs/Snippets use. They are
// unavailable in Swift (`obsoleted: 1`), where the Swift methods are called directly.

// MARK: Entry point, session, diagnostics

extension CometChatPushNotifications {
    /// ``shared`` for Objective-C.
    @available(swift, obsoleted: 1)
    @available(iOSApplicationExtension, unavailable)
    @objc(shared)
    public static var objcShared: CometChatPushNotifications { shared }

    /// ``delegate`` for Objective-C. Held weakly: keep a strong reference to it.
    @available(swift, obsoleted: 1)
    @objc(delegate)
    public weak var objcDelegate: CometChatPushNotificationsDelegate? {
        get { delegate }
        set { delegate = newValue }
    }

    /// ``initialize(config:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(initializeWithConfig:)
    public func objcInitialize(config: PNConfiguration) { initialize(config: config) }

    /// ``handleRegistrationFailure(_:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(handleRegistrationFailure:)
    public func objcHandleRegistrationFailure(_ error: Error) { handleRegistrationFailure(error) }

    /// ``setSession(uid:authToken:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setSessionWithUid:authToken:)
    public func objcSetSession(uid: String, authToken: String) { setSession(uid: uid, authToken: authToken) }

    /// ``getDiagnostics()`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(getDiagnostics)
    public func objcGetDiagnostics() -> [String: Any] { getDiagnostics() }

    /// ``clearBadgeCount()`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(clearBadgeCount)
    public func objcClearBadgeCount() { clearBadgeCount() }
}

// MARK: Notifications

extension CometChatPushNotifications {
    /// ``messageCategoryIdentifier`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(messageCategoryIdentifier)
    public static var objcMessageCategoryIdentifier: String { messageCategoryIdentifier }

    /// ``replyActionIdentifier`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(replyActionIdentifier)
    public static var objcReplyActionIdentifier: String { replyActionIdentifier }

    /// ``parseNotificationInfo(from:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(parseNotificationInfoFrom:)
    public static func objcParseNotificationInfo(from payload: Any) -> CometChatNotificationInfo? {
        parseNotificationInfo(from: payload)
    }

    /// ``isCampaignNotification(userInfo:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(isCampaignNotificationWithUserInfo:)
    public static func objcIsCampaignNotification(userInfo: [AnyHashable: Any]) -> Bool {
        isCampaignNotification(userInfo: userInfo)
    }

    /// ``setActiveConversation(userId:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setActiveConversationWithUserId:)
    public func objcSetActiveConversation(userId: String) { setActiveConversation(userId: userId) }

    /// ``setActiveConversation(groupId:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setActiveConversationWithGroupId:)
    public func objcSetActiveConversation(groupId: String) { setActiveConversation(groupId: groupId) }

    /// ``clearActiveConversation()`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(clearActiveConversation)
    public func objcClearActiveConversation() { clearActiveConversation() }

    /// ``handleBackgroundNotification(userInfo:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(handleBackgroundNotificationWithUserInfo:)
    public func objcHandleBackgroundNotification(userInfo: [AnyHashable: Any]) {
        handleBackgroundNotification(userInfo: userInfo)
    }

    /// ``handleBackgroundNotification(userInfo:completion:)`` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(handleBackgroundNotificationWithUserInfo:completion:)
    public func objcHandleBackgroundNotification(
        userInfo: [AnyHashable: Any], completion: @escaping (PNBackgroundFetchResult) -> Void
    ) {
        handleBackgroundNotification(userInfo: userInfo, completion: completion)
    }
}

// MARK: Tokens, session and readiness: an object and an error

// The Swift completions take a `PNResult`, which Objective-C cannot represent: these hand the
// value (or `nil`) and the error (or `nil`) instead.
extension CometChatPushNotifications {
    /// `registerDeviceToken(_:completion:)` for Objective-C: the completion gets the token as
    /// lowercase hex, or the error.
    @available(swift, obsoleted: 1)
    @objc(registerDeviceToken:completion:)
    public func objcRegisterDeviceToken(_ deviceToken: Data, completion: (@Sendable (String?, PNError?) -> Void)?) {
        registerDeviceToken(deviceToken, completion: completion.map(Self.objcValue))
    }

    /// `registerFCMToken(_:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(registerFCMToken:completion:)
    public func objcRegisterFCMToken(_ token: String, completion: (@Sendable (String?, PNError?) -> Void)?) {
        registerFCMToken(token, completion: completion.map(Self.objcValue))
    }

    /// `registerTokens(completion:)` for Objective-C: the platforms registered, as
    /// `CometChatPushTokenPlatform` raw values, or the error.
    @available(swift, obsoleted: 1)
    @objc(registerTokensWithCompletion:)
    public func objcRegisterTokens(completion: (@Sendable ([NSNumber]?, PNError?) -> Void)?) {
        registerTokens(completion: completion.map(Self.objcPlatforms))
    }

    /// `unregisterTokens(completion:)` for Objective-C: `nil` on success.
    @available(swift, obsoleted: 1)
    @objc(unregisterTokensWithCompletion:)
    public func objcUnregisterTokens(completion: (@Sendable (PNError?) -> Void)?) {
        unregisterTokens(completion: completion.map(Self.objcError))
    }

    /// `clearSession(completion:)` for Objective-C: `nil` on success.
    @available(swift, obsoleted: 1)
    @objc(clearSessionWithCompletion:)
    public func objcClearSession(completion: (@Sendable (PNError?) -> Void)?) {
        clearSession(completion: completion.map(Self.objcError))
    }

    /// `verifyPushSetup(completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(verifyPushSetupWithCompletion:)
    public func objcVerifyPushSetup(completion: @escaping @Sendable ([NSNumber]?, PNError?) -> Void) {
        verifyPushSetup(completion: Self.objcPlatforms(completion))
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
}

// MARK: Bridges from `PNResult` completions

extension CometChatPushNotifications {
    /// A `PNResult` completion that hands `completion` the value or the error.
    static func objcValue<T>(
        _ completion: @escaping @Sendable (T?, PNError?) -> Void
    ) -> @Sendable (PNResult<T>) -> Void {
        { result in
            switch result {
            case .success(let value): completion(value, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    /// A `PNResult<Void>` completion that hands `completion` `nil` or the error.
    static func objcError(_ completion: @escaping @Sendable (PNError?) -> Void) -> @Sendable (PNResult<Void>) -> Void {
        { result in
            switch result {
            case .success: completion(nil)
            case .failure(let error): completion(error)
            }
        }
    }

    /// A completion of platforms that hands `completion` their raw values or the error.
    static func objcPlatforms(
        _ completion: @escaping @Sendable ([NSNumber]?, PNError?) -> Void
    ) -> @Sendable (PNResult<[CometChatPushTokenPlatform]>) -> Void {
        objcValue { platforms, error in completion(platforms?.map { NSNumber(value: $0.rawValue) }, error) }
    }
}
#endif
