import Foundation
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

// Every form of every call that completes later, in every context an app calls it from: a
// synchronous function (an app delegate's callback), a `Task { … }` without `await`, and `async`
// code (`Task { … await … }`, an `async` function), where Swift prefers an `async` overload of
// the same name and labels (SE-0296). The shapes marked "guide" or "docs" are those the reference
// guide, the DocC articles and README show; they must stay plain calls (no `await`) in every
// context, so no `async` form shares their name and labels. This file compiling is the test. It
// is compiled by `swift build --build-tests` on Linux and, against the real iOS SDK with
// warnings as errors, by Scripts/ios-compile-check.sh (it imports nothing but the SDK).

/// A synchronous context, as an app delegate's callbacks are.
@MainActor
func callFormsInSyncCode(
    _ sdk: CometChatPushNotifications, _ calls: CometChatPushNotificationsCalls, deviceToken: Data, fcmToken: String
) {
    // Tokens.
    sdk.registerDeviceToken(deviceToken)  // guide: in didRegisterForRemoteNotificationsWithDeviceToken
    sdk.registerDeviceToken(deviceToken) { result in _ = result }
    sdk.registerDeviceToken(deviceToken, completion: nil)
    sdk.registerFCMToken(fcmToken)  // guide: FCM instead of APNs
    sdk.registerFCMToken(fcmToken) { _ in }
    sdk.registerTokens()
    sdk.registerTokens { _ in }
    sdk.registerTokens(completion: { _ in })
    sdk.unregisterTokens(completion: { _ in })  // guide: logout
    sdk.unregisterTokens { _ in }
    sdk.unregisterTokens()
    sdk.verifyPushSetup { _ in }
    sdk.verifyPushSetup(completion: { _ in })
    sdk.clearSession()
    sdk.clearSession { _ in }
    // Readiness.
    sdk.ensureRingReady { result in  // guide: ring readiness
        guard case .success(let readiness) = result, readiness != .ready else { return }
        print("Push not ready: \(readiness.name)")
    }
    // Preferences and read state.
    sdk.setConversationMuted(userId: "bob", until: Date().addingTimeInterval(86_400))  // docs
    sdk.setConversationMuted(groupId: "hikers", until: nil)  // docs
    sdk.setConversationMuted(userId: "bob", until: nil) { _ in }
    sdk.unmuteConversation(userId: "bob")
    sdk.unmuteConversation(groupId: "hikers") { _ in }
    sdk.setGroupNotificationLevel(.mentionsOnly, groupId: "climbers")  // docs
    sdk.setQuietHours(start: DateComponents(hour: 22), end: DateComponents(hour: 7), includeCalls: false)  // docs
    sdk.clearQuietHours()
    sdk.clearQuietHours { _ in }
    sdk.getPreferences { result in  // docs
        if case .success(let preferences) = result { print(preferences.mutes.count) }
    }
    sdk.markConversationRead(userId: "bob", unreadCount: 3)  // docs
    sdk.markConversationRead(groupId: "hikers", unreadCount: 0)  // docs
    sdk.markConversationRead(userId: "bob")
    sdk.markConversationRead(groupId: "hikers") { _ in }
    // Calls.
    calls.decline(sessionId: "s1")
    calls.decline(sessionId: "s1") { _ in }
    CometChatPushNotificationsCalls.decline(sessionId: "s1")  // docs: the Decline button
    calls.requestCallPermissions()
    calls.requestCallPermissions { granted in _ = granted }
}

/// `Task { … }` without `await`: its closure is synchronous, so these are the calls above.
@MainActor
func callFormsInTasksWithoutAwait(_ sdk: CometChatPushNotifications, _ calls: CometChatPushNotificationsCalls, deviceToken: Data) {
    Task { sdk.registerDeviceToken(deviceToken) }
    Task { sdk.registerTokens() }
    Task { sdk.unregisterTokens(completion: { _ in }) }
    Task { sdk.clearSession() }
    Task { sdk.ensureRingReady { _ in } }
    Task { sdk.setConversationMuted(userId: "bob", until: nil) }
    Task { sdk.markConversationRead(userId: "bob", unreadCount: 3) }
    Task { calls.decline(sessionId: "s1") }
    Task { CometChatPushNotificationsCalls.decline(sessionId: "s1") }
}

/// `async` code: the `async` forms, and beside them the plain calls, which stay plain.
func callFormsInAsyncCode(
    _ sdk: CometChatPushNotifications, _ calls: CometChatPushNotificationsCalls, deviceToken: Data, fcmToken: String
) async throws {
    Task { try await sdk.registerTokens() }  // the shape
    Task {
        let readiness = try await sdk.ensureRingReady()
        if readiness != .ready { sdk.registerDeviceToken(deviceToken) }
    }

    // Tokens: the async forms…
    let hex: String = try await sdk.registerDeviceTokenAndWait(deviceToken)
    try await sdk.registerDeviceTokenAndWait(deviceToken)
    _ = try await sdk.registerFCMTokenAndWait(fcmToken)
    let registered: [CometChatPushTokenPlatform] = try await sdk.registerTokens()
    try await sdk.registerTokens()
    try await sdk.unregisterTokens()
    let verified: [CometChatPushTokenPlatform] = try await sdk.verifyPushSetup()
    try await sdk.clearSessionAndWait()
    // …and the plain calls, unchanged.
    sdk.registerDeviceToken(deviceToken)
    sdk.registerFCMToken(fcmToken)
    sdk.registerTokens(completion: nil)
    sdk.unregisterTokens(completion: { _ in })
    sdk.clearSession()
    print(hex, registered, verified)

    // Readiness.
    let readiness: PNRingReadiness = try await sdk.ensureRingReady()
    sdk.ensureRingReady { _ in }
    print(readiness.name)

    // Preferences and read state: the async forms…
    let preferences: PNNotificationPreferences = try await sdk.getPreferences()
    try await sdk.setConversationMutedAndWait(userId: "bob", until: nil)
    _ = try await sdk.setConversationMutedAndWait(groupId: "hikers", until: Date())
    try await sdk.unmuteConversationAndWait(userId: "bob")
    try await sdk.unmuteConversationAndWait(groupId: "hikers")
    try await sdk.setGroupNotificationLevelAndWait(.nothing, groupId: "climbers")
    try await sdk.setQuietHoursAndWait(start: DateComponents(hour: 22), end: DateComponents(hour: 7), includeCalls: true)
    try await sdk.clearQuietHoursAndWait()
    try await sdk.markConversationReadAndWait(userId: "bob", unreadCount: 3)
    try await sdk.markConversationReadAndWait(groupId: "hikers")
    // …and the plain calls the docs show, unchanged.
    sdk.setConversationMuted(userId: "bob", until: Date().addingTimeInterval(86_400))
    sdk.setConversationMuted(groupId: "hikers", until: nil)
    sdk.unmuteConversation(userId: "bob")
    sdk.setGroupNotificationLevel(.mentionsOnly, groupId: "climbers")
    sdk.setQuietHours(start: DateComponents(hour: 22), end: DateComponents(hour: 7), includeCalls: false)
    sdk.clearQuietHours()
    sdk.getPreferences { _ in }
    sdk.markConversationRead(userId: "bob", unreadCount: 3)
    sdk.markConversationRead(groupId: "hikers", unreadCount: 0)
    print(preferences.mutes.count)

    // Calls: the async forms…
    try await calls.declineAndWait(sessionId: "s1")
    try await CometChatPushNotificationsCalls.declineAndWait(sessionId: "s1")
    let granted: Bool = await calls.requestCallPermissionsAndWait()
    await calls.requestCallPermissionsAndWait()
    // …and the plain calls, unchanged.
    calls.decline(sessionId: "s1")
    CometChatPushNotificationsCalls.decline(sessionId: "s1")
    calls.requestCallPermissions()
    calls.requestCallPermissions { _ in }
    print(granted)
}

/// The errors the `async` forms throw are `PNError`s.
func callFormsCatchPNError(_ sdk: CometChatPushNotifications) async {
    do {
        try await sdk.unregisterTokens()
    } catch let error as PNError {
        print(error.code.name)
    } catch {
        print(error)
    }
}
