import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// Quiet when already reading (issue 31, the SDK's side): with a self-hosted service the SDK
/// reports the conversation on screen (`PUT /notifications/push/v1/activity`), so that the
/// service holds its chat pushes to the user's other devices. Bob is logged in on the device;
/// the clock is the device's (the refresh timer fires only when a test advances it).
@Suite("Active conversation: reported to a self-hosted service")
struct ActiveConversationReportTests {
    let device = SimulatedDevice(permission: .authorized)

    static func selfHosted() -> PNConfiguration {
        PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", clientHost: "https://push.example.com")
    }

    /// Launches the app with `config` and Bob logged in (the app's own login), and settles.
    func launchBob(_ config: PNConfiguration = selfHosted()) async -> SimulatedApp {
        let app = device.launch { $0.initialize(config: config) }
        app.sdk.setSession(uid: "bob", authToken: "bob-token")
        #expect(await device.settle())
        return app
    }

    /// The activity reports the service received, as `conversationId` (`null` for a clear) and
    /// `seconds` (`-` when absent), with the auth token they were sent with.
    var reports: [String] {
        device.service.requests(.activity).map {
            "\($0.json["conversationId"] ?? "?") \($0.json["seconds"] ?? "-") \($0.headers["authToken"] ?? "?")"
        }
    }

    func expectNoViolations(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(device.service.contractViolations == [], sourceLocation: sourceLocation)
        #expect(device.violations == [], sourceLocation: sourceLocation)
        #expect(device.kills == [], sourceLocation: sourceLocation)
    }

    @Test("A user conversation is reported under the id the service gives it (the two uids sorted), a group as group_<guid>")
    func reportsUserAndGroupConversations() async throws {
        let app = await launchBob()
        #expect(reports == [])

        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())
        // bob's own uid sorts after alice's: alice_user_bob, not bob_user_alice.
        #expect(reports == ["alice_user_bob 120 bob-token"])
        #expect(device.service.activity(authToken: "bob-token")?.conversationId == "alice_user_bob")
        #expect(device.service.activity(authToken: "bob-token")?.expiresAt == device.clock.now().addingTimeInterval(120))

        app.sdk.setActiveConversation(userId: "zoe")
        app.sdk.setActiveConversation(groupId: "team")
        #expect(await device.settle())
        #expect(reports.last == "group_team 120 bob-token")
        #expect(device.service.activity(authToken: "bob-token")?.conversationId == "group_team")
        // The local state is what the app set, for the foreground policy.
        #expect(app.sdk.activeConversation == .group("team"))
        expectNoViolations()
    }

    @Test("The same conversation set twice is reported once; another one once more")
    func sameConversationOnce() async throws {
        let app = await launchBob()
        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())
        app.sdk.setActiveConversation(userId: "alice")
        app.sdk.setActiveConversation(userId: " alice ")
        #expect(await device.settle())
        #expect(reports == ["alice_user_bob 120 bob-token"])

        app.sdk.setActiveConversation(userId: "carol")
        #expect(await device.settle())
        #expect(reports == ["alice_user_bob 120 bob-token", "bob_user_carol 120 bob-token"])
        expectNoViolations()
    }

    @Test("Clearing sends null once, and nothing when nothing was reported")
    func clearSendsNullOnce() async throws {
        let app = await launchBob()
        app.sdk.clearActiveConversation()
        app.sdk.setActiveConversation(userId: "  ")  // a blank id clears too
        #expect(await device.settle())
        #expect(reports == [])

        app.sdk.setActiveConversation(groupId: "team")
        #expect(await device.settle())
        app.sdk.clearActiveConversation()
        #expect(await device.settle())
        app.sdk.clearActiveConversation()
        #expect(await device.settle())
        #expect(reports == ["group_team 120 bob-token", "null - bob-token"])
        #expect(device.service.activity(authToken: "bob-token") == nil)
        expectNoViolations()
    }

    @Test("Leaving the foreground clears the conversation on the service but not in the app; coming back reports it again")
    func backgroundClearsAndForegroundReportsAgain() async throws {
        let app = await launchBob()
        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())

        app.sendToBackground()
        #expect(await device.settle())
        #expect(reports == ["alice_user_bob 120 bob-token", "null - bob-token"])
        #expect(device.service.activity(authToken: "bob-token") == nil)
        #expect(app.sdk.activeConversation == .user("alice"))
        // The clear was sent under background time, ended once it was done.
        #expect(app.application.openBackgroundTasks == [])
        #expect(app.application.endedBackgroundTasks.contains("CometChat activity"))

        // In the background, a change is kept for later and sends nothing.
        app.sdk.setActiveConversation(groupId: "team")
        #expect(await device.settle())
        #expect(reports.count == 2)

        app.bringToForeground()
        #expect(await device.settle())
        #expect(reports == ["alice_user_bob 120 bob-token", "null - bob-token", "group_team 120 bob-token"])
        #expect(device.service.activity(authToken: "bob-token")?.conversationId == "group_team")
        expectNoViolations()
    }

    @Test("A conversation kept on screen is reported again every 90 s, before its 120 s end, and not once it is cleared")
    func refreshesBeforeExpiry() async throws {
        let app = await launchBob()
        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())
        let start = device.clock.now()
        #expect(reports.count == 1)

        device.clock.advance(by: 89)
        #expect(await device.settle())
        #expect(reports.count == 1)
        device.clock.advance(by: 1)
        #expect(await device.settle())
        #expect(reports == Array(repeating: "alice_user_bob 120 bob-token", count: 2))
        // Ten minutes on the screen: the service never saw the activity end.
        for _ in 0..<6 {
            device.clock.advance(by: 90)
            #expect(await device.settle())
            #expect(device.service.activity(authToken: "bob-token")?.conversationId == "alice_user_bob")
        }
        let times = device.service.requests(.activity).map { $0.at.timeIntervalSince(start) }
        #expect(times == [0, 90, 180, 270, 360, 450, 540, 630])

        // Another conversation starts its own 90 s.
        device.clock.advance(by: 30)
        app.sdk.setActiveConversation(groupId: "team")
        #expect(await device.settle())
        device.clock.advance(by: 60)
        #expect(await device.settle())
        #expect(reports.last == "group_team 120 bob-token")
        #expect(reports.count == 9)
        device.clock.advance(by: 30)
        #expect(await device.settle())
        #expect(reports.count == 10)

        // Cleared (and in the background), nothing is refreshed.
        app.sdk.clearActiveConversation()
        #expect(await device.settle())
        device.clock.advance(by: 600)
        #expect(await device.settle())
        #expect(reports.count == 11)
        app.sdk.setActiveConversation(groupId: "team")
        #expect(await device.settle())
        app.sendToBackground()
        #expect(await device.settle())
        #expect(reports.count == 13)
        device.clock.advance(by: 600)
        #expect(await device.settle())
        #expect(reports.count == 13)
        expectNoViolations()
    }

    @Test("With CometChat's hosted API (no clientHost) nothing is reported")
    func hostedSendsNothing() async throws {
        let app = await launchBob(PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider"))
        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())
        app.sendToBackground()
        app.bringToForeground()
        device.clock.advance(by: 600)
        app.sdk.clearActiveConversation()
        #expect(await device.settle())
        #expect(device.service.requests(.activity).isEmpty)
        #expect(device.service.requests.allSatisfy { !$0.path.hasSuffix("/activity") })
        #expect(app.sdk.activeConversation == nil)
        expectNoViolations()
    }

    @Test("Logout clears the conversation with the old auth token; the next user's session reports its own")
    func logoutAndSessionChange() async throws {
        let app = await launchBob()
        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())

        try await app.sdk.clearSessionAndWait()
        #expect(await device.settle())
        #expect(reports == ["alice_user_bob 120 bob-token", "null - bob-token"])
        #expect(device.service.activity(authToken: "bob-token") == nil)
        // Logged out, nothing is reported, and no timer refreshes.
        app.sdk.setActiveConversation(userId: "carol")
        device.clock.advance(by: 600)
        #expect(await device.settle())
        #expect(reports.count == 2)

        // Dave logs in, the screen still on carol: his session reports it, as he names it.
        app.sdk.setSession(uid: "dave", authToken: "dave-token")
        #expect(await device.settle())
        #expect(reports.last == "carol_user_dave 120 dave-token")

        // A session change without a logout in between (the CometChat SDK's login): the old
        // session's conversation is cleared first, with its own token.
        device.logInToChatSDK(uid: "erin", authToken: "erin-token")
        #expect(await device.settle())
        #expect(Array(reports.suffix(2)) == ["null - dave-token", "carol_user_erin 120 erin-token"])
        #expect(device.service.activity(authToken: "dave-token") == nil)
        #expect(device.service.activity(authToken: "erin-token")?.conversationId == "carol_user_erin")
        expectNoViolations()
    }

    @Test("A failed report is retried a short while on the clock, then logged; the app's call never waits")
    func failureRetriedThenLogged() async throws {
        let app = await launchBob()
        device.service.fail(.activity, with: [.network, .status(503, code: "ERR_UNAVAILABLE")])
        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())
        // Two failures, then the third attempt went through, after the policy's waits.
        #expect(device.service.requests(.activity).count == 3)
        #expect(device.service.activity(authToken: "bob-token")?.conversationId == "alice_user_bob")
        let waits = device.clock.sleeps.filter { $0 != ActivityReporter.refreshInterval }
        #expect(waits.count == 2)
        #expect(waits.allSatisfy { (1...8).contains($0) }, "\(waits)")

        // Three failures: the report is given up and logged; the next change sends what is
        // wanted then (here the clear, as the service's state is unknown).
        device.service.fail(.activity, with: [.network, .network, .network])
        app.sdk.setActiveConversation(groupId: "team")
        #expect(await device.settle())
        #expect(device.service.requests(.activity).count == 6)
        #expect(device.logger.all.contains { $0.contains("The service was not told of the conversation group_team shown") })
        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())
        #expect(reports.last == "alice_user_bob 120 bob-token")

        // A refused auth token ends the session, as for any call, and stops the reports.
        device.service.acceptOnly(authTokens: [])
        app.sdk.setActiveConversation(groupId: "team")
        #expect(await device.settle())
        #expect(app.sdk.currentUID == nil)
        let sent = device.service.requests(.activity).count
        device.clock.advance(by: 600)
        #expect(await device.settle())
        #expect(device.service.requests(.activity).count == sent)
        expectNoViolations()
    }

    @Test("A killed app sends nothing more: its refresh timer ends with the process")
    func killedAppSendsNothing() async throws {
        let app = await launchBob()
        app.sdk.setActiveConversation(userId: "alice")
        #expect(await device.settle())
        device.terminate()
        device.clock.advance(by: 600)
        #expect(await device.settle())
        #expect(reports == ["alice_user_bob 120 bob-token"])
        expectNoViolations()
    }
}
