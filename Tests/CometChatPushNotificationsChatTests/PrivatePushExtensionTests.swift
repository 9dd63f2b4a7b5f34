import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

/// The Chat configuration against a self-hosted service in private mode.
func privateChatConfig(appGroup: String? = appGroup) -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: "apns-provider", extensionGroupID: appGroup, clientHost: "https://push.example.com")
}

/// The Notification Service Extension opens private pushes (issue 28).
@Suite("Private push: the Notification Service Extension")
struct PrivatePushExtensionTests {
    let device = SimulatedDevice()

    /// The app ran once (it made and registered its key), then iOS runs the extension.
    func privateExtension(
        appGroup group: String? = appGroup, options: PNExtensionOptions = PNExtensionOptions()
    ) async throws -> (SimulatedNotificationServiceExtension, SimulatedPrivatePush.Keys) {
        await device.launchChatApp(privateChatConfig(appGroup: group), delegate: RecordingChatDelegate())
        let keys = try #require(device.service.encryptionKeys(token: PNHex.string(SimulatedDevice.token(1))))
        device.terminate()
        return (device.installNotificationServiceExtension(appGroupID: group, options: options), keys)
    }

    func standard() -> [String: Any] {
        var payload = chatPayload(body: "**Lunch** at _noon_?", avatar: "https://cdn.test/bob.jpg", unread: "5")
        payload["pushId"] = "push-7"
        var aps = payload["aps"] as? [String: Any] ?? [:]
        aps["badge"] = 5
        aps["sound"] = "default"
        payload["aps"] = aps
        return payload
    }

    @Test("A private push shows exactly what the standard push shows: title, body, badge, avatar, receipt")
    func privateMatchesStandard() async throws {
        let (ext, keys) = try await privateExtension()
        ext.media.serve("https://cdn.test/bob.jpg", SimulatedMedia(content: .media(.png), size: 40_000))
        let plain = await ext.receive(standard())
        var second = standard()
        second["tag"] = "m2"
        second["pushId"] = "push-8"
        let push = try SimulatedPrivatePush.alert(second, for: keys, pushId: "push-8")
        #expect(push["enc"] != nil && push["sender"] == nil && push["body"] == nil)
        let hidden = await ext.receive(push)
        #expect(hidden.ran && !hidden.killed && !hidden.expired)
        #expect(hidden.title == plain.title && hidden.title == "Bob")
        #expect(hidden.body == plain.body && hidden.body == "Lunch at noon?")
        #expect(hidden.content?.badge == plain.content?.badge && hidden.content?.badge == 5)
        #expect(hidden.attachment?.mediaType == .png && plain.attachment?.mediaType == .png)
        #expect(hidden.content?.sender?.uid == "bob" && hidden.content?.sender?.name == plain.content?.sender?.name)
        #expect(hidden.content?.sender?.conversationId == "alice_user_bob")
        #expect(hidden.receipt == .sent && plain.receipt == .sent)
        #expect(device.service.requests(.userDelivered).compactMap { $0.json["messageId"] } == ["m1", "m2"])
        #expect(hidden.content?.threadIdentifier == "bob")
        #expect(hidden.content?.categoryIdentifier == "MessageCategory")
        // The content's userInfo becomes the standard payload: a tap carries it.
        let data = try #require(hidden.content?.decryptedPayload)
        let userInfo = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(userInfo["sender"] as? String == "bob" && userInfo["enc"] == nil && userInfo["pushId"] as? String == "push-8")
        #expect(ext.violations.isEmpty && device.service.contractViolations.isEmpty)
        let diagnostics = try #require(
            device.launch { $0.initialize(config: privateChatConfig()) }.sdk.getDiagnostics()["privatePush"] as? [String: Any])
        #expect(diagnostics["lastOpenedInExtension"] != nil)
    }

    @Test("A private push the extension cannot open keeps its placeholder, sends nothing, and says why", arguments: 0..<3)
    func failureKeepsPlaceholder(_ index: Int) async throws {
        let (ext, keys) = try await privateExtension()
        ext.media.serve("https://cdn.test/bob.jpg", SimulatedMedia(content: .media(.png), size: 40_000))
        var push = try SimulatedPrivatePush.alert(standard(), for: keys)
        switch index {
        case 0:  // a key from another device
            let other = try PNPlatform.systemPushCrypto.generateP256KeyPair()
            push = try SimulatedPrivatePush.alert(standard(), for: .init(p256dh: PNBase64URL.encode(other.publicKey), auth: keys.auth))
        case 1:  // truncated
            push["enc"] = String((push["enc"] as? String ?? "").prefix(100))
        default:  // the keychain cannot be read: before the first unlock
            device.keychain.restartDevice()
        }
        let run = await ext.receive(push)
        #expect(run.ran && !run.killed)
        #expect(run.title == nil && run.body == "New message")
        #expect(run.attachment == nil && run.content?.sender == nil && run.receipt == nil)
        #expect(run.content?.decryptedPayload == nil)
        #expect(run.content?.privatePushFailure != nil)
        #expect(device.service.requests(.userDelivered).isEmpty)
        device.keychain.unlock()
        let diagnostics = try #require(
            device.launch { $0.initialize(config: privateChatConfig()) }.sdk.getDiagnostics()["privatePush"] as? [String: Any])
        let failure = try #require(diagnostics["lastDecryptionFailure"] as? [String: String])
        #expect(failure["in"] == "extension")
        #expect(failure["code"] == ["authenticationFailed", "malformed", "noKey"][index])
    }

    @Test("A token registered without a key gets the placeholder only: shown as it is")
    func keylessPlaceholder() async throws {
        let (ext, _) = try await privateExtension()
        let run = await ext.receive(try SimulatedPrivatePush.alert(standard(), for: nil))
        #expect(run.ran && run.body == "New message" && run.content?.privatePushFailure == nil)
        #expect(device.service.requests(.userDelivered).isEmpty)
    }

    @Test("The key is shared only through the App Group's access group: without an App Group the extension cannot open it")
    func keySharedOnlyThroughTheAppGroup() async throws {
        let (ext, keys) = try await privateExtension(appGroup: nil)
        let run = await ext.receive(try SimulatedPrivatePush.alert(standard(), for: keys))
        #expect(run.body == "New message")
        #expect(run.content?.privatePushFailure != nil)
        #expect(device.keychain.item(accessGroup: SimulatedKeychain.appGroup, key: "com.cometchat.push.private-push.keys") != nil)
    }

    @Test("A tap on the notification the extension opened routes the real chat in the app")
    func tapAfterExtension() async throws {
        let (ext, keys) = try await privateExtension()
        let run = await ext.receive(try SimulatedPrivatePush.alert(standard(), for: keys))
        let data = try #require(run.content?.decryptedPayload)
        let userInfo = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let delegate = RecordingChatDelegate()
        let notification = device.notificationCenter.makeNotificationForTest(userInfo)
        device.tap(notification) { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: privateChatConfig())
        }
        #expect(await device.settle())
        #expect(delegate.events == [.product("user:bob:Bob")])
        let diagnostics = try #require(device.app?.sdk.getDiagnostics()["privatePush"] as? [String: Any])
        #expect(diagnostics["warning"] == nil)
    }
}

extension SimulatedNotificationCenter {
    /// A notification with `payload` as its `userInfo`, as the extension handed it to iOS.
    func makeNotificationForTest(_ payload: [String: Any]) -> PNNotification {
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in payload { userInfo[key] = value }
        return PNNotification(identifier: "extension-1", userInfo: userInfo, categoryIdentifier: "MessageCategory")
    }
}
