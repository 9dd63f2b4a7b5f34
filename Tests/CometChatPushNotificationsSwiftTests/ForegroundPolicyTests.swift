import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

@Suite("Foreground policy and badge")
struct ForegroundPolicyTests {
    let device = SimulatedDevice()
    let delegate = RecordingDelegate()

    @discardableResult
    func launch(_ config: PNConfiguration = notificationConfig()) async -> SimulatedApp {
        await device.launchAndSettle(config, delegate: delegate)
    }

    @Test("A chat banner is hidden for the open one-to-one conversation and shown for another")
    func activeUserConversation() async throws {
        // Given: the conversation with alice is on screen
        let app = await launch()
        app.sdk.setActiveConversation(userId: "alice")

        // When: alice writes, then carol writes
        let fromAlice = device.deliver(try contractPayload("chat-user"))
        var fromCarol = try contractPayload("chat-user")
        fromCarol["sender"] = "carol"
        let carol = device.deliver(fromCarol)
        #expect(await device.settle())

        // Then
        #expect(fromAlice.foregroundOptions == [])
        #expect(carol.foregroundOptions == [.banner, .list, .sound])
        #expect(device.notificationCenter.shownNotifications.map(\.identifier) == [carol.notification.identifier])
        #expect(fromAlice.willPresentAnswers == 1 && carol.willPresentAnswers == 1)
    }

    @Test("A group conversation matches the push's receiver, not its sender")
    func activeGroupConversation() async throws {
        let app = await launch()
        app.sdk.setActiveConversation(groupId: "team")
        let group = device.deliver(try contractPayload("chat-group"))
        let direct = device.deliver(try contractPayload("chat-user"))  // alice, one-to-one
        #expect(await device.settle())
        #expect(group.foregroundOptions == [])
        #expect(direct.foregroundOptions == .alert)

        // When the screen goes away, the group's banners show again
        app.sdk.clearActiveConversation()
        #expect(device.deliver(try contractPayload("chat-thread-reply")).foregroundOptions == .alert)
        app.sdk.setActiveConversation(userId: "team")  // a user with the group's id does not match the group
        #expect(device.deliver(try contractPayload("chat-group")).foregroundOptions == .alert)
    }

    @Test("showInAppNotifications off hides chat banners, and leaves the badge alone")
    func inAppNotificationsOff() async throws {
        await launch(notificationConfig(showInAppNotifications: false))
        let chat = device.deliver(try contractPayload("chat-user"))
        let campaign = device.deliver(try contractPayload("campaign"))
        #expect(await device.settle())
        #expect(chat.foregroundOptions == [])
        #expect(campaign.foregroundOptions == .alert)
        #expect(
            device.app?.badgeHistory == [],
            "the campaign carries no count; the chat count is not applied with in-app notifications off")
    }

    @Test("Calls never show a banner in the foreground; the app's own notifications show as without the SDK")
    func callsAndOthers() async throws {
        await launch()
        for name in ["call-initiated-alert", "call-unanswered", "call-group-initiated"] {
            #expect(device.deliver(try contractPayload(name)).foregroundOptions == [], "\(name)")
        }
        let own = device.deliver(["aps": ["alert": "Your order shipped"], "orderId": 7])
        #expect(own.foregroundOptions == [.banner, .list, .sound, .badge])
    }

    /// A count as it may arrive, and the badge it must give.
    struct BadgeCase: @unchecked Sendable, CustomTestStringConvertible {
        var name: String
        var count: Any
        var badge: Int?
        var testDescription: String { name }
    }

    @Test(
        "The badge follows unreadMessageCount as text or number; negative and junk are ignored",
        arguments: [
            BadgeCase(name: "text", count: "5", badge: 5),
            BadgeCase(name: "number", count: 9, badge: 9),
            BadgeCase(name: "zero clears", count: 0, badge: 0),
            BadgeCase(name: "negative", count: -2, badge: nil),
            BadgeCase(name: "negative text", count: "-2", badge: nil),
            BadgeCase(name: "junk", count: "lots", badge: nil),
        ])
    func badgeFromCount(_ input: BadgeCase) async throws {
        let app = await launch()
        var payload = try contractPayload("chat-group")
        payload["unreadMessageCount"] = input.count
        device.deliver(payload)
        #expect(await device.settle())
        let history = app.badgeHistory
        #expect(history == (input.badge.map { [$0] } ?? []))
    }

    @Test("The badge is not touched while enableBadgeCount is off, even by clearBadgeCount")
    func badgeDisabled() async throws {
        let app = await launch(notificationConfig(enableBadgeCount: false))
        device.deliver(try contractPayload("chat-user"))
        #expect(device.deliverSilent(SimulatedDevice.withContentAvailable(try contractPayload("chat-group"))))
        app.sdk.clearBadgeCount()
        #expect(await device.settle())
        #expect(app.badgeHistory == [])
    }

    @Test("A silent push sets the badge and is handed to the Chat product; a tap sets it too")
    func silentPushAndTap() async throws {
        let app = await launch()
        let chat = FakeChatProduct()
        app.sdk.installForTest(chat)
        var payload = try contractPayload("campaign")
        payload["unreadMessageCount"] = 4
        #expect(!device.deliverSilent(payload), "no content-available: iOS does not wake the app")
        #expect(device.deliverSilent(SimulatedDevice.withContentAvailable(payload)))
        #expect(await device.settle())
        #expect(app.badge == 4)
        #expect(chat.calls == ["delivered:campaign:background"])

        app.sendToBackground()
        var later = try contractPayload("chat-user")
        later["unreadMessageCount"] = "6"
        let shown = device.deliver(later)
        device.tap(shown.notification)
        #expect(await device.settle())
        #expect(app.badge == 6)
    }

    @Test("Foreground chat and campaign pushes are handed to the Chat product for delivered receipts")
    func foregroundDelivery() async throws {
        let app = await launch()
        let chat = FakeChatProduct()
        app.sdk.installForTest(chat)
        device.deliver(try contractPayload("chat-user"))
        device.deliver(try contractPayload("campaign"))
        device.deliver(try contractPayload("call-initiated-alert"))
        #expect(await device.settle())
        #expect(chat.calls == ["delivered:chat:foreground", "delivered:campaign:foreground"])
    }

    @Test("The policy decides from the push and the open conversation alone")
    func policyDecision() throws {
        let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: try contractPayload("chat-group")))
        let policy = PNForegroundPolicy(
            showInAppNotifications: true, enableBadgeCount: true,
            activeConversation: .group("team"))
        #expect(policy.decide(info) == PNForegroundDecision(options: [], badge: 3, reason: .activeConversation))
        var other = policy
        other.activeConversation = .group("other")
        #expect(other.decide(info) == PNForegroundDecision(options: .alert, badge: 3, reason: .shown))
    }
}
