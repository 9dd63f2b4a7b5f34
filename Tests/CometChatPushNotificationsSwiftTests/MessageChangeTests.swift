import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// The collapse id of `Contract/payloads/chat-user.json`'s push (message 1042): the identifier of
/// its notification, and the `notificationId` of the edit and deletion fixtures.
let messageCollapseId = "msg-IW2lS1kxptN8yo4plTNh_gLGgLvYtII0P1COMujpzDs"

/// A chat push of Alice to Bob like `chat-user.json`, for message `tag` with `text`.
func aliceMessage(_ tag: String = "1042", text: String = "See you at 5") throws -> [String: Any] {
    var payload = try contractPayload("chat-user")
    payload["tag"] = tag
    payload["body"] = text
    payload["message"] = nil
    var aps = try #require(payload["aps"] as? [String: Any])
    aps["alert"] = ["title": "Alice", "body": text]
    payload["aps"] = aps
    return payload
}

/// A self-hosted configuration with badges on.
func selfHostedConfig() -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: "apns-provider", enableBadgeCount: true, clientHost: "https://push.example.com")
}

extension SimulatedDevice {
    /// Launches the app (self-hosted) with Bob logged in and `delegate`, and settles.
    @discardableResult
    func launchBob(_ delegate: RecordingDelegate? = nil, product: FakeChatProduct? = nil) async -> SimulatedApp {
        let app = launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: selfHostedConfig())
            if let product { sdk.installForTest(product) }
        }
        app.sdk.setSession(uid: "bob", authToken: "bob-token")
        #expect(await settle())
        return app
    }

    /// The delivered receipts the service received.
    var receipts: [SimulatedPushService.Request] { service.requests(.userDelivered) + service.requests(.groupDelivered) }
}

@Suite("Edits and deletions from their background pushes")
struct MessageChangePushTests {
    @Test("A deletion push removes the message's notification by its identifier; nothing is presented, no receipt is sent")
    func deletionRemovesTheNotification() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let product = FakeChatProduct()
        let app = await device.launchBob(product: product)
        app.sendToBackground()
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        device.deliver(try aliceMessage("1043", text: "Later"), identifier: "apns-2", collapseId: "msg-1043")

        let push = device.deliverBackground(try contractPayload("chat-deleted"))
        #expect(await device.settle())
        #expect(push.outcome == .delivered && push.result == .newData)
        #expect(device.notificationCenter.shownNotifications.map(\.identifier) == ["msg-1043"])
        #expect(device.notificationCenter.localRequests.isEmpty)
        #expect(product.calls.isEmpty, "no receipt, no delivery hook")
        #expect(device.receipts.isEmpty)
        #expect(app.process.isSuspended, "completed only once the work was done (rule 26)")
        device.runOutBackgroundTime()
        #expect(device.kills.isEmpty && device.violations.isEmpty)
    }

    @Test("Without its identifier a deletion finds the notification by the message's tag in the conversation")
    func deletionByTag() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        app.sendToBackground()
        device.deliver(try aliceMessage(), identifier: "apns-1")
        var other = try aliceMessage()
        other["conversationId"] = "carol_user_bob"
        other["aps"] = ["alert": ["title": "Carol", "body": "See you at 5"], "thread-id": "carol_user_bob"]
        device.deliver(other, identifier: "apns-2")
        var deletion = try contractPayload("chat-deleted")
        deletion["notificationId"] = nil
        device.deliverBackground(deletion)
        #expect(await device.settle())
        #expect(device.notificationCenter.shownNotifications.map(\.identifier) == ["apns-2"])
    }

    @Test("An edit push replaces the delivered notification quietly: same identifier, new text, no sound, passive, no receipt")
    func editReplacesQuietly() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let product = FakeChatProduct()
        let delegate = RecordingDelegate()
        let app = await device.launchBob(delegate, product: product)
        app.sendToBackground()
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        device.deliver(try aliceMessage("1043", text: "Later"), identifier: "apns-2", collapseId: "msg-1043")

        let push = device.deliverBackground(try contractPayload("chat-edited"))
        #expect(await device.settle())
        #expect(push.result == .newData)
        let center = device.notificationCenter
        #expect(center.shown.map(\.notification.identifier) == ["msg-1043", messageCollapseId], "iOS re-sorts a replacement")
        let edited = try #require(center.shown.last)
        #expect(edited.title == "Alice" && edited.body == "See you at 6")
        #expect(edited.notification.threadIdentifier == "alice_user_bob" && edited.notification.categoryIdentifier == "MessageCategory")
        let delivery = try #require(center.localDeliveries.last)
        #expect(delivery.wasShown && !delivery.playedSound && !delivery.litScreen && delivery.interruptionLevel == "passive")
        #expect(center.duplicates.isEmpty)
        #expect(product.calls.isEmpty && device.receipts.isEmpty)

        // A tap on it still opens the conversation, with the new text.
        app.bringToForeground()
        device.tap(edited.notification)
        #expect(await device.settle())
        #expect(product.calls == ["chatTap:user:alice_user_bob"])
        let info = CometChatNotificationInfo(rawPayload: edited.notification.userInfo)
        #expect(info.body == "See you at 6" && info.messageId == "1042" && info.senderUid == "alice")
    }

    @Test("An edit of a message whose notification is no longer delivered shows nothing")
    func editOfADismissedNotification() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        app.sendToBackground()
        let delivery = device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        device.dismiss(delivery.notification)
        device.deliverBackground(try contractPayload("chat-edited"))
        #expect(await device.settle())
        #expect(device.notificationCenter.shownNotifications.isEmpty)
        #expect(device.notificationCenter.localRequests.isEmpty)
    }

    @Test("In the foreground the edited notification goes to the list only: no banner, no sound, no badge")
    func editInTheForeground() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        app.sendToBackground()
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        app.bringToForeground()
        #expect(await device.settle())
        let badges = app.badgeHistory
        device.deliverBackground(try contractPayload("chat-edited"))
        #expect(await device.settle())
        let delivery = try #require(device.notificationCenter.localDeliveries.last)
        #expect(delivery.foregroundOptions == [.list])
        #expect(delivery.wasShown && !delivery.playedSound && !delivery.litScreen)
        #expect(device.notificationCenter.shown.map(\.body) == ["See you at 6"])
        #expect(app.badgeHistory == badges)
    }

    @Test("An edit older than the one shown does not undo it")
    func editsApplyInOrder() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchBob()
        app.sendToBackground()
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        var newer = try contractPayload("chat-edited")
        newer["body"] = "See you at 7"
        newer["editedAt"] = "1732900090000"
        device.deliverBackground(newer)
        #expect(await device.settle())
        device.deliverBackground(try contractPayload("chat-edited"))  // editedAt 1732900060000, delivered late
        #expect(await device.settle())
        #expect(device.notificationCenter.shown.map(\.body) == ["See you at 7"])
    }

    @Test("A deletion that overtakes its message leaves a tombstone: the late message is neither presented nor receipted, and goes")
    func deletionOvertakesItsMessage() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let product = FakeChatProduct()
        var app = await device.launchBob(product: product)
        device.deliverBackground(try contractPayload("chat-deleted"))
        #expect(await device.settle())

        // In the foreground the late message is not presented and no receipt goes.
        let late = device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        #expect(await device.settle())
        #expect(late.foregroundOptions == [] && !late.wasShown)
        #expect(product.calls.isEmpty && device.receipts.isEmpty)
        // Another message of the conversation still shows.
        #expect(device.deliver(try aliceMessage("1043", text: "Later")).foregroundOptions == .alert)

        // The tombstone outlives the process.
        device.terminate()
        app = await device.launchBob()
        #expect(device.deliver(try aliceMessage(), identifier: "apns-2", collapseId: messageCollapseId).foregroundOptions == [])

        // In the background iOS shows it; when the app is woken for it, it removes it, without a receipt.
        app.sendToBackground()
        let payload = SimulatedDevice.withContentAvailable(try aliceMessage())
        device.deliver(payload, identifier: "apns-3", collapseId: messageCollapseId)
        #expect(device.notificationCenter.shownNotifications.contains { $0.identifier == messageCollapseId })
        let wake = device.deliverBackground(payload)
        #expect(await device.settle())
        #expect(wake.result == .newData)
        #expect(!device.notificationCenter.shownNotifications.contains { $0.identifier == messageCollapseId })
        #expect(device.receipts.isEmpty)
    }

    @Test("A tombstone expires with the retention window")
    func tombstoneExpires() async throws {
        let device = SimulatedDevice(permission: .authorized)
        await device.launchBob()
        device.deliverBackground(try contractPayload("chat-deleted"))
        #expect(await device.settle())
        #expect(device.deliver(try aliceMessage(), collapseId: messageCollapseId).foregroundOptions == [])
        device.clock.advance(by: MessageChangeLedger.lifetime + 1)
        #expect(device.deliver(try aliceMessage(), collapseId: messageCollapseId).foregroundOptions == .alert)
        #expect(await device.settle())
    }

    @Test("The delegate hears of each edit and deletion once, with what changed, however often it arrives")
    func delegateHearsOnce() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let delegate = RecordingDelegate()
        let app = await device.launchBob(delegate)
        app.sendToBackground()
        device.deliver(try aliceMessage(), identifier: "apns-1", collapseId: messageCollapseId)
        device.deliverBackground(try contractPayload("chat-edited"))
        device.deliverBackground(try contractPayload("chat-edited"))
        #expect(await device.settle())
        device.deliverBackground(try contractPayload("chat-deleted"))
        device.deliverBackground(try contractPayload("chat-deleted"))
        // An edit after the deletion is not news.
        var late = try contractPayload("chat-edited")
        late["editedAt"] = "1732900099000"
        device.deliverBackground(late)
        #expect(await device.settle())
        #expect(delegate.events.filter { $0 != .registered(.apns) } == [.edited("1042"), .deleted("1042")])
        let (edit, deletion) = (delegate.messageChanges[0], delegate.messageChanges[1])
        #expect(edit.conversationId == "alice_user_bob" && edit.messageId == "1042")
        #expect(edit.title == "Alice" && edit.body == "See you at 6" && edit.notificationChanged)
        #expect(edit.changedAt == Date(timeIntervalSince1970: 1_732_900_060))
        #expect(deletion.body == nil && deletion.title == nil && deletion.notificationChanged)
        #expect(device.notificationCenter.shownNotifications.isEmpty)

        // A change whose message has no notification here still reaches the delegate.
        var other = try contractPayload("chat-deleted")
        other["tag"] = "2001"
        other["notificationId"] = "msg-2001"
        device.deliverBackground(other)
        #expect(await device.settle())
        #expect(delegate.events.last == .deleted("2001") && delegate.messageChanges.last?.notificationChanged == false)
    }

    @Test("The ledger keeps at most its capacity, the oldest going first")
    func ledgerIsBounded() {
        let ledger = MessageChangeLedger(store: SimulatedDefaults().store(suite: "s"), clock: SimulatedClock())
        for index in 0...MessageChangeLedger.capacity {
            #expect(ledger.recordDeletion(MessageChange(kind: .deleted, conversationId: "c", messageId: "m\(index)")))
        }
        #expect(ledger.tombstones.count == MessageChangeLedger.capacity)
        #expect(!ledger.isDeleted(conversationId: "c", messageId: "m0"))
        #expect(ledger.isDeleted(conversationId: "c", messageId: "m1") && ledger.isDeleted(conversationId: "c", messageId: "m500"))
        #expect(!ledger.recordDeletion(MessageChange(kind: .deleted, conversationId: "c", messageId: "m500")), "seen before")
        #expect(!ledger.isDeleted(conversationId: "other", messageId: "m500"), "ids are per conversation")

        // An edit is news once; a later one again; one of a deleted message never.
        var edit = MessageChange(kind: .edited, conversationId: "c", messageId: "e1", body: "new")
        #expect(ledger.recordEdit(edit) && !ledger.recordEdit(edit))
        edit.at = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ledger.recordEdit(edit) && !ledger.recordEdit(edit))
        edit.messageId = "m500"
        #expect(!ledger.recordEdit(edit))
    }
}
