import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

@Suite("Tap routing, replies and the notification center")
struct TapRoutingTests {
    let device = SimulatedDevice()
    let delegate = RecordingDelegate()

    /// The guide's `didFinishLaunching`: delegate, then initialize.
    func guideLaunch(_ sdk: CometChatPushNotifications) {
        sdk.delegate = delegate
        sdk.initialize(config: notificationConfig())
    }

    @discardableResult
    func tapInBackground(_ payload: [String: Any]) async -> SimulatedResponse {
        device.app?.sendToBackground()
        let response = device.tap(device.deliver(payload).notification)
        #expect(await device.settle())
        return response
    }

    @Test("Without the Chat product, user and group chat taps reach didTapNotification")
    func chatWithoutProduct() async throws {
        await device.launchAndSettle(notificationConfig(), delegate: delegate)
        let user = await tapInBackground(try contractPayload("chat-user"))
        let group = await tapInBackground(try contractPayload("chat-group"))
        #expect(delegate.events == [.tapped("chat"), .tapped("chat")])
        #expect(delegate.tappedInfos.map(\.receiverType) == [.user, .group])
        #expect(user.completionCalls == 1 && group.completionCalls == 1)
        #expect(user.receivedBy == .sdk)
    }

    @Test("With the Chat product, chat taps go to it; campaign taps send the clicked receipt, then open the feed")
    func chatProduct() async throws {
        let app = await device.launchAndSettle(notificationConfig(), delegate: delegate)
        let chat = FakeChatProduct()
        app.sdk.installForTest(chat)
        await tapInBackground(try contractPayload("chat-user"))
        await tapInBackground(try contractPayload("chat-group"))
        await tapInBackground(try contractPayload("campaign"))
        #expect(chat.calls == ["chatTap:user:alice_user_bob", "chatTap:group:group_team", "clicked:spring-sale"])
        #expect(delegate.events == [.notificationsFeed])
    }

    @Test("When the Chat product cannot navigate, the tap falls back to didTapNotification")
    func chatProductDeclines() async throws {
        let app = await device.launchAndSettle(notificationConfig(), delegate: delegate)
        let chat = FakeChatProduct()
        chat.setNavigates(false)
        app.sdk.installForTest(chat)
        await tapInBackground(try contractPayload("chat-group"))
        #expect(delegate.events == [.tapped("chat")])
    }

    @Test("Calls and the app's own notifications reach didTapNotification")
    func otherTaps() async throws {
        await device.launchAndSettle(notificationConfig(), delegate: delegate)
        await tapInBackground(try contractPayload("call-unanswered"))
        await tapInBackground(["aps": ["alert": "Your order shipped"], "orderId": 7])
        #expect(delegate.events == [.tapped("call"), .tapped(nil)])
    }

    @Test("Without the matching method, every kind of tap falls back to navigateToDefaultScreen")
    func fallback() async throws {
        let minimal = DefaultScreenOnlyDelegate()
        await device.launchAndSettle(notificationConfig(), delegate: nil)
        device.app?.sdk.delegate = minimal
        for name in ["chat-user", "campaign", "call-ended"] {
            await tapInBackground(try contractPayload(name))
        }
        #expect(minimal.defaultScreens == 3)
        withExtendedLifetime(minimal) {}
    }

    @Test("A tap that launches the app is delivered once the delegate is set, exactly once")
    func coldLaunchBeforeDelegate() async throws {
        // Given: the app is not running; a chat notification is in Notification Center
        await device.launchAndSettle(notificationConfig(), delegate: delegate)
        device.terminate()
        let notification = device.deliver(try contractPayload("chat-group")).notification

        // When: the tap launches the app, which initializes but sets its delegate later
        let response = device.tap(notification) { sdk in sdk.initialize(config: notificationConfig()) }
        #expect(await device.settle())
        #expect(response.receivedBy == .sdk)
        #expect(response.completionCalls == 1, "iOS gets its completion even while the tap is held")
        #expect(delegate.events.isEmpty)

        let late = RecordingDelegate()
        device.app?.sdk.delegate = late
        #expect(await device.settle())
        device.app?.sdk.delegate = late  // set again: the held tap is not delivered twice
        device.app?.sdk.delegate = nil
        device.app?.sdk.delegate = late
        #expect(await device.settle())

        // Then
        #expect(late.events == [.tapped("chat")])
        #expect(late.tappedInfos.first?.conversationId == "group_team")
    }

    @Test("A tap on a launch where initialize did not run in didFinishLaunching is lost (rule 1)")
    func coldLaunchWithoutInitialize() async throws {
        await device.launchAndSettle(notificationConfig(), delegate: delegate)
        device.terminate()
        let notification = device.deliver(try contractPayload("chat-user")).notification
        let response = device.tap(notification) { sdk in sdk.delegate = delegate }
        device.app?.sdk.initialize(config: notificationConfig())  // too late
        #expect(await device.settle())
        #expect(response.wasLost)
        #expect(delegate.events.isEmpty)
    }

    @Test("initialize sets the categories to MessageCategory with a text-input Reply action, once")
    func categories() async {
        let app = await device.launchAndSettle(notificationConfig(), delegate: delegate)
        app.sdk.initialize(config: notificationConfig())
        let categories = device.notificationCenter.categories
        #expect(categories.map(\.identifier) == [CometChatPushNotifications.messageCategoryIdentifier])
        #expect(categories.first?.actions.map(\.identifier) == [CometChatPushNotifications.replyActionIdentifier])
        #expect(categories.first?.actions.first?.kind == .textInput(buttonTitle: "Send", placeholder: "Message"))
        #expect(device.notificationCenter.categorySetCount == 1)
        #expect(device.notificationCenter.delegateOwner == .sdk)
    }

    @Test("On a device in another language the Reply action speaks it (the first of its languages the SDK has)")
    func categoriesInTheDevicesLanguage() async throws {
        for (languages, words) in [
            (["ja-JP", "de-AT", "en"], ["Antworten", "Senden", "Nachricht"]), (["pt-BR"], ["Responder", "Enviar", "Mensagem"]),
            (["ja-JP"], ["Reply", "Send", "Message"]),
        ] {
            let device = SimulatedDevice()
            device.preferredLanguages = languages
            _ = await device.launchAndSettle(notificationConfig(), delegate: RecordingDelegate())
            let reply = try #require(device.notificationCenter.categories.first?.actions.first)
            #expect(reply.title == words[0], "\(languages)")
            #expect(reply.kind == .textInput(buttonTitle: words[1], placeholder: words[2]), "\(languages)")
        }
        #expect(Set(MessageCategory.texts.keys) == PNBuiltInLanguage.all, "words in every built-in language")
    }

    @Test("A reply goes to the Chat product, which completes; without it the reply reaches didTapNotification")
    func replies() async throws {
        device.simulateUnlinked(["CometChatPushNotificationsChat"])  // the test binary links it
        let app = await device.launchAndSettle(notificationConfig(), delegate: delegate)
        app.sendToBackground()
        let chat = FakeChatProduct()
        let first = device.deliver(try contractPayload("chat-user")).notification
        let withoutChat = try device.reply(to: first, text: "on my way")
        #expect(await device.settle())
        #expect(withoutChat.completionCalls == 1)
        #expect(delegate.tappedInfos.map(\.replyText) == ["on my way"])

        app.sdk.installForTest(chat)
        let second = device.deliver(try contractPayload("chat-thread-reply")).notification
        let withChat = try device.reply(to: second, text: "agreed")
        #expect(await device.settle())
        #expect(chat.calls == ["reply:agreed"])
        #expect(withChat.completionCalls == 1)
        #expect(delegate.events == [.tapped("chat")], "the product's reply is not a tap")
        #expect(app.state == .background, "a reply does not open the app")
    }

    @Test("Dismissing a chat notification wakes nothing: the SDK's MessageCategory asks for no dismissals")
    func dismissIsSilent() async throws {
        await device.launchAndSettle(notificationConfig(), delegate: delegate)
        device.app?.sendToBackground()
        let chat = device.deliver(try contractPayload("chat-user")).notification
        #expect(chat.categoryIdentifier == CometChatPushNotifications.messageCategoryIdentifier)
        #expect(device.dismiss(chat) == nil, "the category reports dismissals")
        #expect(await device.settle())
        #expect(delegate.events.isEmpty)
    }

    @Test("An app that keeps its own delegate and forwards gets the same results as the SDK as delegate")
    func forwarding() async throws {
        // The same scenario on two devices: SDK as delegate, and the app's own forwarding delegate.
        func run(
            forwarding: Bool
        ) async throws -> (options: [PNPresentationOptions?], events: [RecordingDelegate.Event], badge: Int, completions: [Int]) {
            let device = SimulatedDevice()
            device.simulateUnlinked(["CometChatPushNotificationsChat"])  // the test binary links it
            let delegate = RecordingDelegate()
            let app = await device.launchAndSettle(notificationConfig(), delegate: delegate)
            if forwarding {
                let sdk = app.sdk
                device.notificationCenter.setAppDelegate(
                    PNNotificationCenterEvents(
                        willPresent: { sdk.handleWillPresentNotification($0, completionHandler: $1) },
                        didReceive: { sdk.handleNotificationResponse($0, completionHandler: $1) }))
            }
            #expect(device.notificationCenter.delegateOwner == (forwarding ? .app : .sdk))
            app.sdk.setActiveConversation(userId: "alice")
            let hidden = device.deliver(try contractPayload("chat-user"))
            let shown = device.deliver(try contractPayload("chat-group"))
            let campaign = device.deliver(try contractPayload("campaign"))
            app.sendToBackground()
            let tap1 = device.tap(shown.notification)
            app.sendToBackground()
            let tap2 = device.tap(campaign.notification)
            let reply = try device.reply(to: hidden.notification, text: "hi")
            #expect(await device.settle())
            return (
                [hidden, shown, campaign].map(\.foregroundOptions), delegate.events, app.badge,
                [tap1, tap2, reply].map(\.completionCalls)
            )
        }
        let asDelegate = try await run(forwarding: false)
        let forwarded = try await run(forwarding: true)
        #expect(asDelegate.options == [[], .alert, .alert])
        #expect(asDelegate.events == [.tapped("chat"), .notificationsFeed, .tapped("chat")])
        #expect(asDelegate.badge == 3)
        #expect(asDelegate.completions == [1, 1, 1])
        #expect(forwarded.options == asDelegate.options)
        #expect(forwarded.events == asDelegate.events)
        #expect(forwarded.badge == asDelegate.badge)
        #expect(forwarded.completions == asDelegate.completions)
    }

    @Test("Tap callbacks arrive on the main queue")
    func mainQueue() async throws {
        // The main queue, recognised by a queue-specific value (on Linux it may be served off the main thread).
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
        final class ThreadCheckingDelegate: RecordingDelegate, @unchecked Sendable {
            let onMain = PNLocked<[Bool]>([])
            let key: DispatchSpecificKey<String>
            init(key: DispatchSpecificKey<String>) { self.key = key }
            override func didTapNotification(_ info: CometChatNotificationInfo) {
                onMain.withLock { $0.append(DispatchQueue.getSpecific(key: key) == "main") }
                super.didTapNotification(info)
            }
        }
        let checking = ThreadCheckingDelegate(key: key)
        await device.launchAndSettle(notificationConfig(), delegate: checking)
        await tapInBackground(try contractPayload("chat-user"))
        #expect(checking.onMain.current == [true])
    }
}
