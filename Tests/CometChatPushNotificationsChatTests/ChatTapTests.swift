import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

@Suite struct ChatTapTests {
    @Test func installsTheChatProductAndListsItInDiagnostics() async {
        let device = SimulatedDevice()
        let app = await device.launchChatApp(delegate: RecordingChatDelegate())
        let products = app.sdk.getDiagnostics()["products"] as? [String]
        #expect(products?.contains("CometChatPushNotificationsChat") == true)
    }

    @Test(arguments: [
        (nil as String?, "user:bob:Bob"),
        ("hikers", "group:hikers:Hikers"),
    ])
    func tapNavigatesToTheConversation(group: String?, expected: String) async throws {
        // Given a running app in the background with a chat delegate
        let device = SimulatedDevice()
        let delegate = RecordingChatDelegate()
        let app = await device.launchChatApp(delegate: delegate)
        app.sendToBackground()
        // When a chat push arrives and the user taps it
        let delivery = device.deliver(chatPayload(group: group))
        let response = device.tap(delivery.notification)
        #expect(await device.settle())
        // Then the delegate opens that conversation, and nothing else
        #expect(delegate.events.filter(\.isNavigation) == [.product(expected)])
        #expect(response.completionCalls == 1)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test func tapThatLaunchesTheAppReachesNavigateToChat() async {
        let device = SimulatedDevice()
        await device.launchChatApp(delegate: RecordingChatDelegate())
        device.terminate()
        let delivery = device.deliver(chatPayload(sender: "carol"))
        let delegate = RecordingChatDelegate()
        device.tap(delivery.notification) { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: chatConfig())
        }
        #expect(await device.settle())
        #expect(delegate.events.filter(\.isNavigation) == [.product("user:carol:Bob")])
    }

    @Test func delegateWithoutChatMethodsFallsBackToDidTapNotification() async {
        let device = SimulatedDevice()
        let delegate = RecordingDelegate()
        let app = device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: chatConfig())
        }
        #expect(await device.settle())
        app.sendToBackground()
        device.tap(device.deliver(chatPayload()).notification)
        #expect(await device.settle())
        #expect(delegate.events.filter(\.isNavigation) == [.tapped("chat")])
    }

    @Test func userAndGroupComeFromThePayload() throws {
        let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: chatPayload(avatar: "https://x.test/b.png")))
        #expect(PNUser(notification: info) == PNUser(uid: "bob", name: "Bob", avatar: "https://x.test/b.png"))
        #expect(PNGroup(notification: info) == nil)
        let groupInfo = try #require(CometChatPushNotifications.parseNotificationInfo(from: chatPayload(group: "g1")))
        #expect(PNGroup(notification: groupInfo) == PNGroup(guid: "g1", name: "Hikers", icon: nil))
        #expect(PNUser(notification: groupInfo) == nil)
    }
}
