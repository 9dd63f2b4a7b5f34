import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// The simulated iPhone enforces iOS's rules against the app (docs/IOS-PLATFORM-RULES.md): each test
/// here drives a deliberately wrong client and checks the simulator catches it, next to the
/// right client, which it lets pass. Remove a rule's enforcement and its test fails.
@Suite("The simulator enforces iOS's rules")
struct SimulatorRulesTests {
    private func chatPayload() throws -> [String: Any] {
        let fixture = try #require(try contractFixtures("payloads").first { $0.name == "chat-user.json" })
        return fixture.json
    }

    @Test("Rule 27: an expiration handler that returns without ending its task gets the app killed")
    func backgroundTaskExpiry() async throws {
        let device = SimulatedDevice()
        let wrong = device.launch()
        _ = await wrong.application.beginBackgroundTask(name: "forgets to end") {}
        wrong.application.expireBackgroundTasks()
        #expect(device.kills.count == 1)
        #expect(device.kills.first?.contains("forgets to end") == true)
        #expect(device.app == nil, "the process is gone")

        let right = device.launch()
        let ender = PNLocked<Int?>(nil)
        let application = right.application
        let id = await application.beginBackgroundTask(name: "ends in time") {
            if let id = ender.current { application.endBackgroundTask(id) }
        }
        ender.withLock { $0 = id }
        application.expireBackgroundTasks()
        #expect(device.kills.count == 1, "no new kill")
        #expect(device.app === right)
    }

    @Test("A request from a process iOS ended never reaches the network and is a violation")
    func deadProcessRequests() async throws {
        let device = SimulatedDevice()
        let app = device.launch()
        let transport = app.sdk.runtimePlatform.transport
        let request = PNHTTPRequest(method: "PUT", url: URL(string: "https://app1.apiclient-us.cometchat.io/v3.0/calls/s1")!)
        device.terminate()
        #expect(!app.process.isAlive)
        await #expect(throws: PNTransportError.self) { _ = try await transport.send(request) }
        #expect(device.violations.count == 1)
        #expect(device.violations.first?.contains("after iOS ended it") == true)
        #expect(device.service.requests.isEmpty)
    }

    @Test("Rule 23: the permission prompt shows once per install, and only if the app asks")
    func permissionPromptOncePerInstall() async throws {
        let asks = SimulatedDevice()
        await asks.launchAndSettle()
        asks.terminate()
        await asks.launchAndSettle()
        #expect(asks.permissionPrompts == 1)

        // An app that never asks never gets its background alerts shown.
        let silent = SimulatedDevice()
        let app = await silent.launchAndSettle(
            PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", requestNotificationPermission: false))
        app.sendToBackground()
        silent.deliver(try chatPayload())
        #expect(silent.permissionPrompts == 0)
        #expect(silent.notificationCenter.shownNotifications.isEmpty)
    }

    @Test("A passive notification goes to Notification Center without a sound or lighting the screen")
    func passiveInterruptionLevel() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = device.launch { $0.initialize(config: testConfig()) }
        #expect(await device.settle())
        app.sendToBackground()
        let normal = device.deliver(try chatPayload())
        #expect(normal.interruptionLevel == "active")
        #expect(normal.wasShown && normal.playedSound && normal.litScreen)
        var quiet = try chatPayload()
        var aps = try #require(quiet["aps"] as? [String: Any])
        aps["interruption-level"] = "passive"
        quiet["aps"] = aps
        let passive = device.deliver(quiet)
        #expect(passive.wasShown && !passive.playedSound && !passive.litScreen)
        aps["interruption-level"] = nil
        aps["sound"] = nil
        quiet["aps"] = aps
        let silent = device.deliver(quiet)
        #expect(silent.wasShown && !silent.playedSound && silent.litScreen)
        #expect(device.notificationCenter.shownNotifications.count == 3)
    }

    @Test("A background alert is shown only when the user allowed notifications")
    func backgroundAlertNeedsPermission() async throws {
        let denied = SimulatedDevice(promptAnswer: .denied)
        await denied.launchAndSettle()
        denied.terminate()
        denied.deliver(try chatPayload())
        #expect(denied.notificationCenter.shownNotifications.isEmpty)

        let allowed = SimulatedDevice(promptAnswer: .authorized)
        await allowed.launchAndSettle()
        allowed.terminate()
        allowed.deliver(try chatPayload())
        #expect(allowed.notificationCenter.shownNotifications.count == 1)
    }

    @Test("willPresent's and didReceive's completion handlers count once; a second call is a violation")
    func completionHandlersOnce() async throws {
        let device = SimulatedDevice(permission: .authorized)
        device.launch()
        device.notificationCenter.setAppDelegate(
            PNNotificationCenterEvents(
                willPresent: { _, completion in
                    completion([.banner])
                    completion([])
                },
                didReceive: { _, completion in
                    completion()
                    completion()
                }))
        let delivery = device.deliver(try chatPayload())
        #expect(delivery.foregroundOptions == [.banner], "iOS keeps the first answer")
        #expect(device.violations == ["willPresent's completion handler was called more than once"])
        device.tap(delivery.notification)
        #expect(device.violations.last == "didReceive's completion handler was called more than once")
    }

    @Test("Rule 20: a silent push needs content-available and the remote-notification background mode")
    func silentPushRules() async throws {
        let payload = SimulatedDevice.withContentAvailable(try chatPayload())
        let noMode = SimulatedDevice(backgroundModes: [])
        noMode.launch()
        #expect(!noMode.deliverSilent(payload))

        let withMode = SimulatedDevice(backgroundModes: ["remote-notification"])
        withMode.launch()
        #expect(!withMode.deliverSilent(try chatPayload()), "no content-available")
        #expect(withMode.deliverSilent(payload))
    }

    @Test("Rule 33: a push with the collapse id of a delivered notification replaces it and moves it to the top, also after a dismissal")
    func collapseIdReplaces() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = device.launch { $0.initialize(config: testConfig()) }
        #expect(await device.settle())
        app.sendToBackground()
        let message = try chatPayload()
        var later = message
        later["tag"] = "1043"
        let collapseId = "msg-IW2lS1kxptN8yo4plTNh_gLGgLvYtII0P1COMujpzDs"
        let center = device.notificationCenter
        device.deliver(message, identifier: "apns-1", collapseId: collapseId)
        device.deliver(later, identifier: "apns-2", collapseId: "msg-later")
        // The service sends the first message again (a resend after a crash): a new apns-id, the same collapse id.
        let resend = device.deliver(message, identifier: "apns-3", collapseId: collapseId)
        #expect(resend.wasShown && resend.playedSound && resend.litScreen, "iOS presents the replacement again")
        #expect(center.shownNotifications.map(\.identifier) == ["msg-later", collapseId], "one notification, now on top")
        // The user dismissed it; the next resend shows again, as one notification.
        device.dismiss(resend.notification)
        #expect(center.shownNotifications.map(\.identifier) == ["msg-later"])
        device.deliver(message, identifier: "apns-4", collapseId: collapseId)
        #expect(center.shownNotifications.map(\.identifier) == ["msg-later", collapseId])
        #expect(center.duplicates.isEmpty)

        // Without a collapse id a resend is a second notification, and the simulator records it.
        device.deliver(later, identifier: "apns-5")
        #expect(center.shownNotifications.count == 3)
        #expect(center.duplicates.map { $0.shown.notification.identifier } == ["apns-5"])
        #expect(center.duplicates.first?.alreadyShown.notification.identifier == "msg-later")
    }

    @Test("Rule 33: a client that shows a resent push again under an identifier of its own is caught as a duplicate")
    func aClientThatShowsAResendTwiceIsCaught() async throws {
        let message = try chatPayload()
        let collapseId = "msg-IW2lS1kxptN8yo4plTNh_gLGgLvYtII0P1COMujpzDs"

        // A deliberately wrong client: its own notification-center delegate hides each push in the
        // foreground and shows it again as a local notification with a new identifier (its own
        // in-app presentation), so a resend, which iOS would have put in the first one's place,
        // becomes a second notification.
        let wrong = SimulatedDevice(permission: .authorized)
        wrong.launch()
        let center = wrong.notificationCenter
        center.setAppDelegate(
            PNNotificationCenterEvents(
                willPresent: { notification, completion in
                    guard notification.userInfo["shownByApp"] == nil else { return completion([.banner, .list]) }
                    completion([])
                    var userInfo = ["shownByApp": "1"]
                    for case (let key as String, let value as String) in notification.userInfo { userInfo[key] = value }
                    let alert = (notification.userInfo["aps"] as? [String: Any])?["alert"] as? [String: Any]
                    let request = PNLocalNotificationRequest(
                        identifier: UUID().uuidString, title: alert?["title"] as? String ?? "", body: alert?["body"] as? String ?? "",
                        threadIdentifier: notification.threadIdentifier, userInfo: userInfo)
                    center.add(request) { _ in }
                },
                didReceive: { _, completion in completion() }))
        wrong.deliver(message, identifier: "apns-1", collapseId: collapseId)
        wrong.deliver(message, identifier: "apns-2", collapseId: collapseId)
        #expect(center.shownNotifications.count == 2)
        #expect(center.duplicates.count == 1)
        #expect(center.duplicates.first.map { $0.shown.isLocal && $0.alreadyShown.isLocal } == true)

        // The SDK as the delegate lets iOS show the push under its collapse id: the resend replaces it.
        let right = SimulatedDevice(permission: .authorized)
        right.launch { $0.initialize(config: testConfig()) }
        #expect(await right.settle())
        right.deliver(message, identifier: "apns-1", collapseId: collapseId)
        right.deliver(message, identifier: "apns-2", collapseId: collapseId)
        #expect(right.notificationCenter.shownNotifications.map(\.identifier) == [collapseId])
        #expect(right.notificationCenter.duplicates.isEmpty)
        #expect(await right.settle())
    }

    @Test("Rule 33: a local request with a delivered notification's identifier takes its place; in the foreground willPresent decides")
    func localRequestReplaces() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = device.launch { $0.initialize(config: testConfig()) }
        #expect(await device.settle())
        app.sendToBackground()
        let center = device.notificationCenter
        device.deliver(try chatPayload(), identifier: "apns-1", collapseId: "msg-1")
        var later = try chatPayload()
        later["tag"] = "1043"
        device.deliver(later, identifier: "apns-2", collapseId: "msg-2")
        let quiet = PNLocalNotificationRequest(
            identifier: "msg-1", title: "Alice", body: "See you at 6", threadIdentifier: "alice_user_bob",
            userInfo: ["type": "chat", "tag": "1042"], playsSound: false, interruptionLevel: .passive)
        _ = await awaitResult { (done: @escaping @Sendable ((any Error)?) -> Void) in center.add(quiet, completion: done) }
        #expect(center.shown.map(\.notification.identifier) == ["msg-2", "msg-1"])
        #expect(center.shown.last?.body == "See you at 6" && center.shown.last?.isLocal == true)
        let delivery = try #require(center.localDeliveries.last)
        #expect(delivery.wasShown && !delivery.playedSound && !delivery.litScreen && delivery.interruptionLevel == "passive")
        #expect(center.duplicates.isEmpty)

        // In the foreground iOS asks the delegate; an app delegate that answers no options hides it.
        app.bringToForeground()
        center.setAppDelegate(
            PNNotificationCenterEvents(willPresent: { _, completion in completion([]) }, didReceive: { _, completion in completion() }))
        let hidden = PNLocalNotificationRequest(identifier: "local-2", title: "Alice", body: "Hi")
        _ = await awaitResult { (done: @escaping @Sendable ((any Error)?) -> Void) in center.add(hidden, completion: done) }
        #expect(center.localDeliveries.last.map { $0.foregroundOptions == [] && !$0.wasShown } == true)
        #expect(!center.shownNotifications.contains { $0.identifier == "local-2" })
    }
}
