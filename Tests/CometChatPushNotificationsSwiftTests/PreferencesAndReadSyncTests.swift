import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// A configuration against a self-hosted push service (`clientHost` set), or CometChat's hosted API.
private func config(selfHosted: Bool = true, enableBadgeCount: Bool = true) -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: "apns-provider", enableBadgeCount: enableBadgeCount,
        clientHost: selfHosted ? "https://push.example.com" : nil)
}

/// A chat push from `sender` (one-to-one with Alice) or in `group`.
private func chat(_ sender: String = "bob", group: String? = nil, messageId: String = "m1") -> [String: Any] {
    [
        "type": "chat", "title": "Bob", "body": "Hi", "sender": sender, "receiver": group ?? "alice",
        "receiverType": group == nil ? "user" : "group",
        "conversationId": group.map { "group_\($0)" } ?? "alice_user_\(sender)", "tag": messageId,
        "aps": ["alert": ["title": "Bob", "body": "Hi"], "thread-id": group.map { "group_\($0)" } ?? "alice_user_\(sender)"]
            as [String: Any],
    ]
}

extension SimulatedDevice {
    @discardableResult
    fileprivate func launchLoggedIn(_ config: PNConfiguration) async -> SimulatedApp {
        let app = launch { $0.initialize(config: config) }
        app.sdk.setSession(uid: "alice", authToken: "alice-token")
        #expect(await settle())
        return app
    }
}

@Suite struct PreferencesTests {
    @Test func everyPreferencesCallReachesTheServiceAndAnswersThePreferences() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config())
        let sdk = app.sdk
        let until = Date(timeIntervalSince1970: 4_000_000_000)

        let muted = await awaitResult { sdk.setConversationMuted(userId: "bob", until: until, completion: $0) }
        #expect(try muted.get().isMuted(userId: "bob", at: Date(timeIntervalSince1970: 1_800_000_000)))
        _ = await awaitResult { sdk.setConversationMuted(groupId: "hikers", until: nil, completion: $0) }
        _ = await awaitResult { sdk.setGroupNotificationLevel(.mentionsOnly, groupId: "climbers", completion: $0) }
        let quiet = await awaitResult {
            sdk.setQuietHours(
                start: DateComponents(hour: 22, minute: 30), end: DateComponents(hour: 7, minute: 0), includeCalls: true,
                completion: $0)
        }
        let afterQuiet = try quiet.get()
        #expect(afterQuiet.quietHours?.start.hour == 22 && afterQuiet.quietHours?.start.minute == 30)
        #expect(afterQuiet.quietHours?.end.hour == 7 && afterQuiet.quietHours?.includeCalls == true)
        #expect(afterQuiet.level(groupId: "climbers") == .mentionsOnly)
        #expect(afterQuiet.isMuted(groupId: "hikers") && afterQuiet.mutes.count == 2)

        let stored = device.service.preferences(authToken: "alice-token")
        #expect(stored.groups == ["climbers": "mentions"])
        #expect(stored.quietHours?.start == "22:30" && stored.quietHours?.end == "07:00" && stored.quietHours?.includeCalls == true)
        #expect(stored.mutes.map(\.receiver) == ["bob", "hikers"])
        #expect(stored.mutes[0].until == 4_000_000_000_000 && stored.mutes[1].until == nil)
        #expect(device.service.requests(.muteConversation).map { $0.json["until"] } == ["4000000000000", "null"])

        _ = await awaitResult { sdk.unmuteConversation(userId: "bob", completion: $0) }
        _ = await awaitResult { sdk.unmuteConversation(groupId: "hikers", completion: $0) }
        _ = await awaitResult { sdk.clearQuietHours(completion: $0) }
        let read = try await awaitResult { sdk.getPreferences(completion: $0) }.get()
        #expect(read.mutes.isEmpty && read.quietHours == nil && read.level(groupId: "climbers") == .mentionsOnly)
        #expect(
            device.service.requests(.unmuteConversation).map { $0.path } == [
                "/notifications/push/v1/preferences/mutes/user/bob", "/notifications/push/v1/preferences/mutes/group/hikers",
            ])
        #expect(device.service.requests(.clearQuietHours).count == 1 && device.service.requests(.getPreferences).count == 1)
        #expect(device.service.requests.allSatisfy { $0.headers["authToken"] == "alice-token" })
        #expect(device.service.contractViolations.isEmpty)
        #expect(sdk.lastKnownPreferences?.mutes.isEmpty == true)
    }

    @Test func againstTheHostedAPITheCallsAnswerNotSupportedWithoutARequest() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config(selfHosted: false))
        let sdk = app.sdk
        device.service.clearRequests()
        var codes: [PNError.Code?] = []
        codes.append(await awaitResult { sdk.setConversationMuted(userId: "bob", until: nil, completion: $0) }.failureCode)
        codes.append(await awaitResult { sdk.setConversationMuted(groupId: "g", until: nil, completion: $0) }.failureCode)
        codes.append(await awaitResult { sdk.unmuteConversation(userId: "bob", completion: $0) }.failureCode)
        codes.append(await awaitResult { sdk.unmuteConversation(groupId: "g", completion: $0) }.failureCode)
        codes.append(await awaitResult { sdk.setGroupNotificationLevel(.nothing, groupId: "g", completion: $0) }.failureCode)
        codes.append(
            await awaitResult {
                sdk.setQuietHours(
                    start: DateComponents(hour: 22), end: DateComponents(hour: 7), includeCalls: false, completion: $0)
            }.failureCode)
        codes.append(await awaitResult { sdk.clearQuietHours(completion: $0) }.failureCode)
        codes.append(await awaitResult { sdk.getPreferences(completion: $0) }.failureCode)
        codes.append(await awaitResult { sdk.markConversationRead(userId: "bob", unreadCount: 2, completion: $0) }.failureCode)
        codes.append(await awaitResult { sdk.markConversationRead(groupId: "g", completion: $0) }.failureCode)
        #expect(codes == Array(repeating: .notSupported, count: 10))
        #expect(await device.settle())
        #expect(device.service.requests.isEmpty)
    }

    @Test func invalidArgumentsSendNothing() async {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config())
        device.service.clearRequests()
        let blank = await awaitResult { app.sdk.setConversationMuted(userId: "  ", until: nil, completion: $0) }
        let badTime = await awaitResult {
            app.sdk.setQuietHours(
                start: DateComponents(hour: 25), end: DateComponents(hour: 7), includeCalls: false, completion: $0)
        }
        #expect(blank.failureCode == .serverError && badTime.failureCode == .serverError)
        #expect(device.service.requests.isEmpty)
    }

    @Test func aPushForAMutedConversationIsHiddenInTheForegroundOnly() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config())
        // Before any preferences are known: shown.
        #expect(device.deliver(chat("bob", messageId: "m0")).foregroundOptions == .alert)
        _ = try await awaitResult { app.sdk.setConversationMuted(userId: "bob", until: nil, completion: $0) }.get()
        _ = try await awaitResult { app.sdk.setConversationMuted(groupId: "hikers", until: nil, completion: $0) }.get()
        _ = try await awaitResult { app.sdk.setGroupNotificationLevel(.nothing, groupId: "quiet", completion: $0) }.get()
        let end = device.clock.now().addingTimeInterval(60)
        _ = try await awaitResult { app.sdk.setConversationMuted(userId: "dave", until: end, completion: $0) }.get()

        #expect(device.deliver(chat("bob", messageId: "m1")).foregroundOptions == [])
        #expect(device.deliver(chat("carol", group: "hikers", messageId: "m2")).foregroundOptions == [])
        #expect(device.deliver(chat("carol", group: "quiet", messageId: "m3")).foregroundOptions == [])
        #expect(device.deliver(chat("dave", messageId: "m4")).foregroundOptions == [])
        #expect(device.deliver(chat("carol", messageId: "m5")).foregroundOptions == .alert)
        #expect(device.deliver(chat("carol", group: "climbers", messageId: "m6")).foregroundOptions == .alert)
        // A mute that has ended hides nothing.
        device.clock.advance(by: 61)
        #expect(device.deliver(chat("dave", messageId: "m7")).foregroundOptions == .alert)
        // In the background iOS shows it: the extension cannot drop it.
        app.sendToBackground()
        device.deliver(chat("bob", messageId: "m8"))
        #expect(device.notificationCenter.shownNotifications.contains { $0.userInfo["tag"] as? String == "m8" })
        #expect(await device.settle())
    }
}

@Suite struct ReadSyncTests {
    /// Notifications of three conversations in Notification Center (delivered in the background).
    private func fill(_ device: SimulatedDevice) {
        device.deliver(chat("bob", messageId: "b1"))
        device.deliver(chat("bob", messageId: "b2"))
        device.deliver(chat("carol", messageId: "c1"))
        device.deliver(chat("erin", group: "hikers", messageId: "g1"))
        #expect(device.notificationCenter.shownNotifications.count == 4)
    }

    private func tags(_ device: SimulatedDevice) -> [String] {
        device.notificationCenter.shownNotifications.compactMap { $0.userInfo["tag"] as? String }
    }

    @Test func aReadPushClearsOnlyThatConversationAndSetsTheBadge() async {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config())
        app.sendToBackground()
        fill(device)
        let push = device.deliverReadPush(conversationId: "alice_user_bob", unreadCount: 3, pushId: "p-1")
        #expect(await device.settle())
        #expect(push.outcome == .delivered && push.result == .newData)
        #expect(tags(device) == ["c1", "g1"])
        #expect(device.badge == 3 && app.badgeHistory.last == 3)
        // Rule 26: the app was suspended only once the work was done.
        #expect(app.process.isSuspended)

        let group = device.deliverReadPush(conversationId: "group_hikers")
        #expect(await device.settle())
        #expect(group.result == .newData && tags(device) == ["c1"] && device.badge == 3)
        device.runOutBackgroundTime()
        #expect(device.kills.isEmpty && device.violations.isEmpty)
    }

    /// A service that counts the badge (issue 30) puts the total in `aps.badge` of the read
    /// push: the SDK applies it when the push has no `unreadCount` (which wins when both are there).
    @Test func aReadPushWithOnlyAPSBadgeSetsTheBadge() async {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config())
        app.sendToBackground()
        fill(device)
        let payload: [String: Any] = [
            "aps": ["content-available": 1, "badge": 2], "type": "read", "conversationId": "alice_user_bob", "pushId": "p-2",
        ]
        let push = device.deliverBackground(payload)
        #expect(await device.settle())
        #expect(push.outcome == .delivered && push.result == .newData)
        #expect(tags(device) == ["c1", "g1"])
        #expect(device.badge == 2 && app.badgeHistory.last == 2)

        var both = payload
        both["aps"] = ["content-available": 1, "badge": 7]
        both["unreadCount"] = "1"
        both["conversationId"] = "group_hikers"
        #expect(device.deliverBackground(both).outcome == .delivered)
        #expect(await device.settle())
        #expect(device.badge == 1 && app.badgeHistory.last == 1)
    }

    @Test func withoutBadgeCountingTheBadgeStays() async {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config(enableBadgeCount: false))
        app.sendToBackground()
        fill(device)
        let push = device.deliverReadPush(conversationId: "alice_user_carol", unreadCount: 9)
        #expect(await device.settle())
        #expect(push.result == .newData && tags(device) == ["b1", "b2", "g1"])
        #expect(app.badgeHistory.isEmpty)
    }

    @Test func aReadPushReachesATerminatedAppButNotAForceQuitOne() async {
        let device = SimulatedDevice(permission: .authorized)
        await device.launchLoggedIn(config())
        device.terminate()
        fill(device)
        let launched = device.deliverReadPush(conversationId: "alice_user_bob", unreadCount: 1)
        #expect(await device.settle())
        #expect(launched.outcome == .delivered && launched.result == .newData)
        #expect(device.launchCount == 2 && tags(device) == ["c1", "g1"] && device.badge == 1)

        device.forceQuit()
        let refused = device.deliverReadPush(conversationId: "alice_user_carol", unreadCount: 0)
        #expect(refused.outcome == .notDelivered("the user force-quit the app"))
        #expect(tags(device) == ["c1", "g1"] && device.badge == 1 && device.launchCount == 2)

        await device.launchLoggedIn(config())
        device.throttleBackgroundPushes(true)
        #expect(device.deliverReadPush(conversationId: "alice_user_carol").outcome == .notDelivered("iOS throttled it"))
        device.throttleBackgroundPushes(false)
        let payload: [String: Any] = ["aps": ["content-available": 1], "type": "read", "conversationId": "alice_user_carol"]
        #expect(device.deliverBackground(payload, priority: 10).outcome != .delivered)
        #expect(device.deliverBackground(["type": "read", "conversationId": "x"]).outcome != .delivered)
        #expect(await device.settle())
    }

    @Test func anAppThatDropsTheFetchCompletionHandlerIsKilled() async {
        // A deliberately wrong app: its didReceiveRemoteNotification never calls the handler.
        let device = SimulatedDevice(permission: .authorized)
        await device.launchLoggedIn(config())
        let push = device.deliverReadPush(conversationId: "alice_user_bob", appCallsCompletion: false)
        #expect(await device.settle())
        #expect(push.outcome == .delivered && !push.isCompleted)
        device.runOutBackgroundTime()
        #expect(device.kills == ["a background push's fetch completion handler was not called within 30 s"])
    }

    @Test func markConversationReadSendsTheReadCallAndClearsLocally() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config())
        app.sendToBackground()
        fill(device)
        app.bringToForeground()
        try await awaitResult { app.sdk.markConversationRead(userId: "bob", unreadCount: 4, completion: $0) }.get()
        try await awaitResult { app.sdk.markConversationRead(groupId: "hikers", completion: $0) }.get()
        #expect(await device.settle())
        let reads = device.service.requests(.markRead)
        #expect(
            reads.map { $0.json } == [
                ["receiverType": "user", "receiver": "bob", "unreadCount": "4"], ["receiverType": "group", "receiver": "hikers"],
            ])
        #expect(tags(device) == ["c1"] && app.badgeHistory.last == 4)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test func markConversationReadAgainstTheHostedAPIStillClearsLocally() async {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchLoggedIn(config(selfHosted: false))
        app.sendToBackground()
        fill(device)
        let result = await awaitResult { app.sdk.markConversationRead(userId: "carol", completion: $0) }
        #expect(result.failureCode == .notSupported)
        #expect(await device.settle())
        #expect(tags(device) == ["b1", "b2", "g1"] && device.service.requests(.markRead).isEmpty)
    }

    @Test func readPushesAreParsedStrictly() {
        #expect(ReadSyncPush(["type": "read", "conversationId": "c", "unreadCount": "7", "pushId": "p"])?.unreadCount == 7)
        #expect(ReadSyncPush(["type": "read", "conversationId": "c", "unreadCount": "-1"])?.unreadCount == nil)
        #expect(ReadSyncPush(["type": "read"]) == nil)
        #expect(ReadSyncPush(["type": "chat", "conversationId": "c"]) == nil)
        #expect(CometChatNotificationInfo(rawPayload: ["type": "chat", "pushId": "p-9"]).pushId == "p-9")
        #expect(CometChatNotificationInfo(rawPayload: ["type": "chat"]).pushId == nil)
    }
}

extension Result {
    fileprivate var failureCode: PNError.Code? {
        if case .failure(let error) = self { return (error as? PNError)?.code }
        return nil
    }
}

@Suite struct IssueEighteenContractTests {
    private let headers = ["appid": "app1", "authToken": "t", "Content-Type": "application/json", "Accept": "application/json"]

    private func problems(_ method: String, _ path: String, _ body: [String: Any]?) -> [String] {
        let data = body.map { try! JSONSerialization.data(withJSONObject: $0) }
        return WireContract.violations(method: method, path: path, headers: headers, body: data)
    }

    @Test func theNewRoutesAcceptWhatTheSDKSendsAndRejectBrokenVariants() {
        let base = "/notifications/push/v1"
        #expect(problems("PUT", base + "/preferences/mutes", ["receiverType": "user", "receiver": "bob", "until": NSNull()]).isEmpty)
        #expect(problems("PUT", base + "/preferences/mutes", ["receiverType": "user", "receiver": "bob", "until": 5]).isEmpty)
        #expect(!problems("PUT", base + "/preferences/mutes", ["receiverType": "user", "receiver": "bob"]).isEmpty)
        #expect(!problems("PUT", base + "/preferences/mutes", ["receiverType": "room", "receiver": "bob", "until": NSNull()]).isEmpty)
        #expect(problems("PUT", base + "/preferences/groups/g1", ["level": "mentions"]).isEmpty)
        #expect(!problems("PUT", base + "/preferences/groups/g1", ["level": "loud"]).isEmpty)
        #expect(problems("PUT", base + "/preferences/quiet-hours", ["start": "22:00", "end": "07:00", "includeCalls": false]).isEmpty)
        #expect(!problems("PUT", base + "/preferences/quiet-hours", ["start": "22", "end": "07:00", "includeCalls": false]).isEmpty)
        #expect(!problems("PUT", base + "/preferences/quiet-hours", ["start": "22:00", "end": "07:00", "includeCalls": 1]).isEmpty)
        #expect(problems("POST", base + "/read", ["receiverType": "group", "receiver": "g1", "unreadCount": 0]).isEmpty)
        #expect(!problems("POST", base + "/read", ["receiverType": "group", "receiver": "g1", "unreadCount": -1]).isEmpty)
        #expect(problems("POST", base + "/pushes/p1/opened", nil).isEmpty)
        #expect(!problems("POST", base + "/pushes/p1/opened", ["x": 1]).isEmpty)
        #expect(problems("POST", "/users/bob/conversation/delivered", ["messageId": "m", "pushId": "p", "deliveredBy": "app"]).isEmpty)
        #expect(!problems("POST", "/users/bob/conversation/delivered", ["messageId": "m", "deliveredBy": "app"]).isEmpty)
        #expect(!problems("POST", "/users/bob/conversation/delivered", ["messageId": "m", "pushId": "p", "deliveredBy": "phone"]).isEmpty)
        #expect(WireContract.match(method: "DELETE", path: base + "/preferences/mutes/group/g%201")?.parameter == "g 1")
        #expect(WireContract.match(method: "GET", path: base + "/preferences")?.route == .getPreferences)
    }
}
