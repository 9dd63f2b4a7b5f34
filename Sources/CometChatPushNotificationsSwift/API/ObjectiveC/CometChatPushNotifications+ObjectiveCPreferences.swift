#if canImport(ObjectiveC)
import Foundation

// The Objective-C forms of the preferences and read-state calls: the completion gets the
// preferences (or `nil`) and the error (or `nil`), since Objective-C cannot represent a
// `PNResult`. Unavailable in Swift, where the `PNResult` and `async` forms are used.
extension CometChatPushNotifications {
    /// `setConversationMuted(userId:until:completion:)` for Objective-C: the preferences, or
    /// the error.
    @available(swift, obsoleted: 1)
    @objc(setConversationMutedWithUserId:until:completion:)
    public func objcSetConversationMuted(
        userId: String, until: Date?, completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?
    ) {
        setConversationMuted(userId: userId, until: until, completion: completion.map(Self.objcValue))
    }

    /// `setConversationMuted(groupId:until:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setConversationMutedWithGroupId:until:completion:)
    public func objcSetConversationMuted(
        groupId: String, until: Date?, completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?
    ) {
        setConversationMuted(groupId: groupId, until: until, completion: completion.map(Self.objcValue))
    }

    /// `unmuteConversation(userId:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(unmuteConversationWithUserId:completion:)
    public func objcUnmuteConversation(userId: String, completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?) {
        unmuteConversation(userId: userId, completion: completion.map(Self.objcValue))
    }

    /// `unmuteConversation(groupId:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(unmuteConversationWithGroupId:completion:)
    public func objcUnmuteConversation(groupId: String, completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?) {
        unmuteConversation(groupId: groupId, completion: completion.map(Self.objcValue))
    }

    /// `setGroupNotificationLevel(_:groupId:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setGroupNotificationLevel:groupId:completion:)
    public func objcSetGroupNotificationLevel(
        _ level: PNGroupNotificationLevel, groupId: String,
        completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?
    ) {
        setGroupNotificationLevel(level, groupId: groupId, completion: completion.map(Self.objcValue))
    }

    /// `setQuietHours(start:end:includeCalls:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(setQuietHoursWithStart:end:includeCalls:completion:)
    public func objcSetQuietHours(
        start: DateComponents, end: DateComponents, includeCalls: Bool,
        completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?
    ) {
        setQuietHours(start: start, end: end, includeCalls: includeCalls, completion: completion.map(Self.objcValue))
    }

    /// `clearQuietHours(completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(clearQuietHoursWithCompletion:)
    public func objcClearQuietHours(completion: (@Sendable (PNNotificationPreferences?, PNError?) -> Void)?) {
        clearQuietHours(completion: completion.map(Self.objcValue))
    }

    /// `getPreferences(completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(getPreferencesWithCompletion:)
    public func objcGetPreferences(completion: @escaping @Sendable (PNNotificationPreferences?, PNError?) -> Void) {
        getPreferences(completion: Self.objcValue(completion))
    }

    /// `markConversationRead(userId:unreadCount:completion:)` for Objective-C: `unreadCount` is
    /// an `NSNumber` or `nil`; the completion gets `nil` on success.
    @available(swift, obsoleted: 1)
    @objc(markConversationReadWithUserId:unreadCount:completion:)
    public func objcMarkConversationRead(
        userId: String, unreadCount: NSNumber?, completion: (@Sendable (PNError?) -> Void)?
    ) {
        markConversationRead(userId: userId, unreadCount: unreadCount?.intValue, completion: completion.map(Self.objcError))
    }

    /// `markConversationRead(groupId:unreadCount:completion:)` for Objective-C.
    @available(swift, obsoleted: 1)
    @objc(markConversationReadWithGroupId:unreadCount:completion:)
    public func objcMarkConversationRead(
        groupId: String, unreadCount: NSNumber?, completion: (@Sendable (PNError?) -> Void)?
    ) {
        markConversationRead(groupId: groupId, unreadCount: unreadCount?.intValue, completion: completion.map(Self.objcError))
    }
}
#endif
