import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

@Suite struct QuickReplyTests {
    /// A device whose app was killed after a first run, with a chat notification on screen.
    func killedAppWithNotification(
        _ payload: [String: Any], clock: SimulatedClock = SimulatedClock()
    ) async -> (SimulatedDevice, PNNotification) {
        let device = SimulatedDevice(clock: clock)
        await device.launchChatApp(delegate: RecordingChatDelegate())
        device.terminate()
        device.service.clearRequests()
        return (device, device.deliver(payload).notification)
    }

    func relaunch(_ delegate: RecordingChatDelegate) -> (CometChatPushNotifications) -> Void {
        { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: chatConfig())
        }
    }

    @Test(arguments: [
        (nil as String?, nil as String?, WireContract.Route.sendMessage, "bob", "user", nil as String?),
        ("hikers", nil, .sendMessage, "hikers", "group", nil),
        ("hikers", "p9", .sendThreadMessage, "hikers", "group", "p9"),
        (nil, "p7", .sendThreadMessage, "bob", "user", "p7"),
    ])
    func replyFromAKilledAppGoesToTheConversation(
        group: String?, parentId: String?, route: WireContract.Route, receiver: String, receiverType: String,
        pathParent: String?
    ) async throws {
        // Given a killed app and a chat notification
        let (device, notification) = await killedAppWithNotification(chatPayload(group: group, parentId: parentId))
        let delegate = RecordingChatDelegate()
        // When the user replies from the notification
        let response = try device.reply(to: notification, text: "On my way", launching: relaunch(delegate))
        #expect(await device.settle())
        // Then one text message reaches the conversation, and iOS hears the reply is done
        let sent = device.service.requests(route)
        #expect(sent.count == 1)
        #expect(sent.first?.json["receiver"] == receiver)
        #expect(sent.first?.json["receiverType"] == receiverType)
        #expect(sent.first?.text == "On my way")
        #expect(sent.first?.headers["authToken"] == "alice-token")
        #expect(sent.first?.match?.parameter == pathParent)
        #expect(response.completionCalls == 1)
        #expect(device.app?.application.openBackgroundTasks.isEmpty == true)
        #expect(delegate.events.isEmpty)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test func replyIsRetriedAfterANetworkFailure() async throws {
        let (device, notification) = await killedAppWithNotification(chatPayload())
        device.service.fail(.sendMessage, with: [.network, .status(503, code: "ERR_UNAVAILABLE")])
        let delegate = RecordingChatDelegate()
        let start = device.clock.now()
        let response = try device.reply(to: notification, text: "retry me", launching: relaunch(delegate))
        #expect(await device.settle())
        let attempts = device.service.requests(.sendMessage)
        #expect(attempts.count == 3)
        #expect(attempts.allSatisfy { $0.text == "retry me" })
        // Back-off between attempts, all inside the background time
        #expect(
            attempts[1].at > attempts[0].at
                && attempts[2].at.timeIntervalSince(attempts[1].at) > attempts[1].at.timeIntervalSince(attempts[0].at))
        #expect(attempts[2].at.timeIntervalSince(start) < 30)
        #expect(response.completionCalls == 1)
        #expect(delegate.events.isEmpty)
        #expect(device.notificationCenter.localRequests.isEmpty)
    }

    @Test func replyThatFinallyFailsIsReportedAndShown() async throws {
        let (device, notification) = await killedAppWithNotification(chatPayload())
        device.service.fail(.sendMessage, with: Array(repeating: .network, count: 50))
        let delegate = RecordingChatDelegate()
        let start = device.clock.now()
        let response = try device.reply(to: notification, text: "lost?", launching: relaunch(delegate))
        #expect(await device.settle())
        let attempts = device.service.requests(.sendMessage)
        #expect(attempts.count > 1)
        #expect(attempts.last.map { $0.at.timeIntervalSince(start) < 30 } == true)
        #expect(delegate.events == [.product("replyFailed:lost?:networkError")])
        let local = device.notificationCenter.localRequests
        #expect(local.count == 1)
        #expect(local.first?.body.contains("lost?") == true)
        #expect(local.first?.threadIdentifier == "alice_user_bob")
        #expect(response.completionCalls == 1)
        #expect(device.app?.application.openBackgroundTasks.isEmpty == true)
    }

    @Test("A failing reply is tried again 1, 2, 4, 8 and 8 s later: a sixth wait would end past its 25 s")
    func replyRetryScheduleFitsItsBudget() async throws {
        let (device, notification) = await killedAppWithNotification(chatPayload())
        device.service.fail(.sendMessage, with: Array(repeating: .network, count: 50))
        try device.reply(to: notification, text: "schedule", launching: relaunch(RecordingChatDelegate()))
        #expect(await device.settle())
        let attempts = device.service.requests(.sendMessage)
        let first = try #require(attempts.first?.at)
        #expect(attempts.map { $0.at.timeIntervalSince(first) } == [0, 1, 3, 7, 15, 23])
    }

    @Test func aRejectedReplyIsNotRetried() async throws {
        let (device, notification) = await killedAppWithNotification(chatPayload())
        device.service.fail(.sendMessage, with: [.status(400, code: "ERR_BAD_REQUEST")])
        let delegate = RecordingChatDelegate()
        try device.reply(to: notification, text: "nope", launching: relaunch(delegate))
        #expect(await device.settle())
        #expect(device.service.requests(.sendMessage).count == 1)
        #expect(delegate.events == [.product("replyFailed:nope:serverError")])
    }

    @Test func backgroundTimeRunningOutStillCompletes() async throws {
        // A clock that never moves by itself: the reply's first retry waits, its background
        // task open, until the test expires it (with retries running instantly the task could
        // open and end between two looks, and the test waited for it in vain)
        let clock = SimulatedClock(autoAdvanceLimit: 0)
        let (device, notification) = await killedAppWithNotification(chatPayload(), clock: clock)
        device.service.fail(.sendMessage, with: Array(repeating: .network, count: 50))
        let delegate = RecordingChatDelegate()
        let response = try device.reply(to: notification, text: "late", launching: relaunch(delegate))
        let application = try #require(device.app?.application)
        let deadline = Date().addingTimeInterval(60)
        while clock.suspendedSleepers == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(device.service.requests(.sendMessage).count == 1, "the first attempt failed and its retry waits")
        #expect(application.openBackgroundTasks == ["CometChat quick reply"])
        application.expireBackgroundTasks()
        #expect(device.kills == [], "the expiration handler ended its task before returning")
        #expect(application.openBackgroundTasks.isEmpty)
        #expect(await device.settle())
        #expect(response.completionCalls == 1)
    }
}
