import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

extension SimulatedDevice {
    /// The `since` of each changes-feed request, in order (`nil`: asked without one).
    var changesCursors: [String?] { service.requests(.changes).map { $0.query["since"] } }

    /// The user leaves the app and comes back to it.
    func returnToApp() async {
        app?.sendToBackground()
        app?.bringToForeground()
        #expect(await settle())
    }
}

extension SimulatedPushService {
    /// Records changes for Bob's session.
    func recordForBob(_ changes: SimulatedPushService.Change...) {
        for change in changes { recordChange(change, authToken: "bob-token") }
    }
}

@Suite("The catch-up on the changes feed")
struct CatchUpTests {
    @Test("A fresh installation asks without a cursor and keeps the one it gets; each return to the foreground asks from it")
    func cursorPerLaunchAndForeground() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        #expect(device.changesCursors == [nil])
        #expect(device.service.requests(.changes).first?.query["limit"] == "200")

        device.service.recordForBob(.read(conversationId: "alice_user_bob", unreadCount: 1, at: device.clock.now()))
        await device.returnToApp()
        #expect(device.changesCursors == [nil, "c0"])
        await device.returnToApp()
        #expect(device.changesCursors == [nil, "c0", "c1"])

        // Becoming active without having been in the background is no return to the foreground.
        app.bringToForeground()
        #expect(await device.settle())
        #expect(device.changesCursors.count == 3)

        // The cursor outlives the process.
        device.terminate()
        await device.launchBob()
        #expect(device.changesCursors == [nil, "c0", "c1", "c1"])
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("The catch-up applies edits, deletions and reads as their pushes would, and the delegate hears of them")
    func appliesTheFeed() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let delegate = RecordingDelegate()
        let app = await device.launchBob(delegate)
        app.sendToBackground()
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        device.deliver(try aliceMessage("1043", text: "Later"), identifier: "apns-2", collapseId: "msg-1043")
        var carol = try aliceMessage("3001", text: "Hi")
        carol["conversationId"] = "bob_user_carol"
        carol["aps"] = ["alert": ["title": "Carol", "body": "Hi"], "thread-id": "bob_user_carol"]
        device.deliver(carol, identifier: "apns-3", collapseId: "msg-3001")
        let now = device.clock.now()
        device.service.recordForBob(
            .edited(
                conversationId: "alice_user_bob", messageId: "1042", notificationId: messageCollapseId, title: "Alice",
                body: "See you at 6", at: now),
            .deleted(conversationId: "alice_user_bob", messageId: "1043", notificationId: "msg-1043", at: now),
            .read(conversationId: "bob_user_carol", unreadCount: 4, at: now))

        app.bringToForeground()
        #expect(await device.settle())
        let center = device.notificationCenter
        #expect(center.shown.map(\.notification.identifier) == [messageCollapseId])
        #expect(center.shown.first?.body == "See you at 6")
        #expect(center.localDeliveries.last.map { !$0.playedSound && $0.foregroundOptions == [.list] } == true)
        #expect(app.badgeHistory.last == 4)
        #expect(delegate.events.filter { $0 != .registered(.apns) } == [.edited("1042"), .deleted("1043")])
        #expect(device.receipts.isEmpty && center.duplicates.isEmpty)

        // The same changes as pushes afterwards are not news.
        device.deliverBackground(try contractPayload("chat-edited"))
        #expect(await device.settle())
        #expect(delegate.events.filter { $0 != .registered(.apns) }.count == 2)
    }

    @Test("An edit and a deletion made while the app was force-quit are applied at the next launch")
    func forceQuitThenLaunch() async throws {
        let device = SimulatedDevice(permission: .authorized)
        await device.launchBob()
        device.forceQuit()
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        device.deliver(try aliceMessage("1043", text: "Later"), identifier: "apns-2", collapseId: "msg-1043")
        // iOS delivers no background push to a force-quit app: the fast path is lost.
        let now = device.clock.now()
        var deletion = try contractPayload("chat-deleted")
        deletion["tag"] = "1043"
        deletion["notificationId"] = "msg-1043"
        #expect(device.deliverBackground(try contractPayload("chat-edited")).outcome == .notDelivered("the user force-quit the app"))
        #expect(device.deliverBackground(deletion).outcome == .notDelivered("the user force-quit the app"))
        device.service.recordForBob(
            .edited(
                conversationId: "alice_user_bob", messageId: "1042", notificationId: messageCollapseId, title: "Alice",
                body: "See you at 6", at: now),
            .deleted(conversationId: "alice_user_bob", messageId: "1043", notificationId: "msg-1043", at: now))
        #expect(device.notificationCenter.shown.map(\.body) == ["See you at 5", "Later"])

        // The user opens the app: the catch-up is the guarantee.
        await device.launchBob()
        #expect(device.notificationCenter.shown.map(\.body) == ["See you at 6"])
        #expect(device.notificationCenter.localDeliveries.last.map { !$0.playedSound } == true)
    }

    @Test("The catch-up pages while the service has more")
    func paging() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let delegate = RecordingDelegate()
        await device.launchBob(delegate)
        for index in 0..<450 {
            device.service.recordForBob(
                .deleted(conversationId: "alice_user_bob", messageId: "m\(index)", notificationId: nil, at: device.clock.now()))
        }
        await device.returnToApp()
        #expect(device.changesCursors == [nil, "c0", "c200", "c400"])
        #expect(delegate.events.filter { if case .deleted = $0 { return true } else { return false } }.count == 450)
        await device.returnToApp()
        #expect(device.changesCursors.last == "c450")
    }

    @Test("A truncated feed is a full resync: the notifications it can no longer vouch for go, the rest stay")
    func truncatedFeedResyncs() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        app.sendToBackground()
        // An old message (the fixture's sentAt, years ago), whose deletion the service purged
        // before this device read it.
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        device.service.recordForBob(
            .deleted(conversationId: "alice_user_bob", messageId: "999", notificationId: nil, at: device.clock.now()))
        device.service.purgeChanges(authToken: "bob-token")
        // A minute later, a message and a change the service still has: whatever happens to that
        // message from now on is in the feed.
        device.clock.advance(by: 60)
        var recent = try aliceMessage("1043", text: "Later")
        recent["sentAt"] = MessageChange.milliseconds(device.clock.now())
        device.deliver(recent, identifier: "apns-2", collapseId: "msg-1043")
        device.service.recordForBob(.read(conversationId: "bob_user_carol", unreadCount: nil, at: device.clock.now()))

        app.bringToForeground()
        #expect(await device.settle())
        #expect(device.notificationCenter.shownNotifications.map(\.identifier) == ["msg-1043"])
        #expect(device.logger.all.contains { $0.contains("a full resync") })
    }

    @Test("A deleted message's notification that iOS showed anyway goes at the next catch-up")
    func tombstonesSweptAtTheCatchUp() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        app.sendToBackground()
        device.deliverBackground(try contractPayload("chat-deleted"))
        #expect(await device.settle())
        // The late message arrives in the background: iOS shows it (an extension cannot drop it).
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        #expect(device.notificationCenter.shownNotifications.count == 1)
        app.bringToForeground()
        #expect(await device.settle())
        #expect(device.notificationCenter.shownNotifications.isEmpty)
    }

    @Test("No answer or a 5xx is retried with the SDK's retry policy; another error waits for the next trigger")
    func failures() async throws {
        let device = SimulatedDevice(permission: .authorized)
        device.service.fail(.changes, with: [.network, .status(503, code: "ERR_OPERATION_FAILED")])
        await device.launchBob()
        #expect(device.changesCursors == [nil, nil, nil], "two failures, then the answer")
        #expect(device.clock.sleeps.count >= 2)

        device.service.fail(.changes, with: [.status(404, code: "ERR_NOT_FOUND")])
        await device.returnToApp()
        #expect(device.changesCursors.count == 4, "a 404 is not retried")
        await device.returnToApp()
        #expect(device.changesCursors.count == 5)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("A catch-up waiting to retry stops when the session ends")
    func retryStopsAtLogout() async throws {
        let device = SimulatedDevice(permission: .authorized, clock: SimulatedClock(autoAdvanceLimit: 0))
        device.service.fail(.changes, with: [.network])
        let app = await device.launchBob()
        #expect(device.changesCursors == [nil] && device.clock.suspendedSleepers == 1, "failed once, waiting to retry")
        try await app.sdk.clearSessionAndWait()
        device.clock.advance(by: 120)
        #expect(await device.settle())
        #expect(device.changesCursors == [nil], "not with the session that ended")
    }

    @Test("After an admin revokes the auth token, the next request fails with the auth error and the user is logged out")
    func revokedAuthTokenLogsOut() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        #expect(device.service.registrations(authToken: "bob-token").count == 1)
        #expect(app.sdk.getDiagnostics()["loggedIn"] as? Bool == true)

        device.service.revoke(authToken: "bob-token")
        #expect(device.service.registrations(authToken: "bob-token").isEmpty, "revoking removes the push tokens")
        await device.returnToApp()
        #expect(device.service.requests(.changes).count == 2)
        #expect(app.sdk.getDiagnostics()["loggedIn"] as? Bool == false)
        #expect(device.keychain.allItems.values.allSatisfy { !$0.values.contains { $0.contains("bob-token") } })
        #expect(app.badgeHistory.last == 0, "the badge is cleared as at a logout")
        #expect(device.logger.all.contains { $0.contains("Session ended: the service rejected the auth token") })

        // Logged out: nothing more is asked, in this process or the next.
        await device.returnToApp()
        device.terminate()
        device.launch { $0.initialize(config: selfHostedConfig()) }
        #expect(await device.settle())
        #expect(device.service.requests(.changes).count == 2)
        #expect(device.app?.sdk.getDiagnostics()["loggedIn"] as? Bool == false)
    }

    @Test("Any client call answered with the auth error logs the user out, a preferences call too")
    func authErrorOnAnyCallLogsOut() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        device.service.revoke(authToken: "bob-token")
        await #expect(throws: PNError.self) { try await app.sdk.getPreferences() }
        #expect(await device.settle())
        #expect(app.sdk.getDiagnostics()["loggedIn"] as? Bool == false)
        // A new login works again.
        device.service.acceptOnly(authTokens: ["bob-token-2"])
        app.sdk.setSession(uid: "bob", authToken: "bob-token-2")
        #expect(await device.settle())
        #expect(app.sdk.getDiagnostics()["loggedIn"] as? Bool == true)
    }

    @Test("Each user has a cursor of their own")
    func cursorPerUser() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        device.service.recordForBob(.read(conversationId: "alice_user_bob", unreadCount: nil, at: device.clock.now()))
        await device.returnToApp()
        #expect(device.changesCursors == [nil, "c0"])
        try await app.sdk.clearSessionAndWait()
        app.sdk.setSession(uid: "carol", authToken: "carol-token")
        #expect(await device.settle())
        #expect(device.changesCursors == [nil, "c0", nil], "Carol starts from now")
        try await app.sdk.clearSessionAndWait()
        app.sdk.setSession(uid: "bob", authToken: "bob-token")
        #expect(await device.settle())
        #expect(device.changesCursors == [nil, "c0", nil, "c1"], "Bob goes on from his")
    }

    @Test("A launch in the background waits for the foreground to catch up")
    func backgroundLaunch() async throws {
        let device = SimulatedDevice(permission: .authorized)
        await device.launchBob()
        device.terminate()
        let push = device.deliverReadPush(conversationId: "alice_user_bob")
        #expect(await device.settle())
        #expect(push.outcome == .delivered && device.launchCount == 2)
        // Not asked, and not tried either (a suspended app's request would fail and be retried).
        #expect(device.changesCursors == [nil])
        #expect(!device.logger.all.contains { $0.contains("The changes feed did not answer") })
        #expect(device.logger.all.contains { $0.contains("The catch-up waits until the app comes to the foreground") })
        device.app?.bringToForeground()
        #expect(await device.settle())
        #expect(device.changesCursors == [nil, "c0"])
    }

    @Test("Against CometChat's hosted API there is no changes feed to ask")
    func notSelfHosted() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = device.launch { $0.initialize(config: notificationConfig()) }
        app.sdk.setSession(uid: "bob", authToken: "bob-token")
        #expect(await device.settle())
        await device.returnToApp()
        #expect(device.service.requests(.changes).isEmpty)
    }
}
