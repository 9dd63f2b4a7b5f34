import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

@Suite struct ReceiptTests {
    enum Order: String, CaseIterable { case extensionFirst, appForegroundFirst, silentPushFirst }

    @Test(arguments: Order.allCases, [nil as String?, "hikers"])
    func oneDeliveredReceiptWhoeverSeesTheMessageFirst(order: Order, group: String?) async {
        // Given a running app and an extension sharing an App Group
        let device = SimulatedDevice()
        await device.launchChatApp(delegate: RecordingChatDelegate())
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        let payload = chatPayload(messageId: "m42", group: group)
        // When both the extension and the app see the message, in either order
        switch order {
        case .extensionFirst:
            _ = await ext.receive(payload)
            device.deliver(payload)
        case .appForegroundFirst:
            device.deliver(payload)
            #expect(await device.settle())
            _ = await ext.receive(payload)
        case .silentPushFirst:
            #expect(device.deliverSilent(SimulatedDevice.withContentAvailable(payload)))
            #expect(await device.settle())
            _ = await ext.receive(payload)
        }
        #expect(await device.settle())
        // Then exactly one receipt is sent, to the right conversation
        let route: WireContract.Route = group == nil ? .userDelivered : .groupDelivered
        let receipts = device.service.requests(route)
        #expect(receipts.count == 1)
        #expect(receipts.first?.match?.parameter == (group ?? "bob"))
        #expect(receipts.first?.json["messageId"] == "m42")
        #expect(receipts.first?.headers["authToken"] == "alice-token")
        #expect(device.service.requests(group == nil ? .groupDelivered : .userDelivered).isEmpty)
        #expect(device.service.contractViolations.isEmpty)
        #expect(ext.violations.isEmpty)
    }

    @Test func withoutAnAppGroupTheAppSendsTheReceipt() async {
        let device = SimulatedDevice()
        await device.launchChatApp(chatConfig(appGroup: nil), delegate: RecordingChatDelegate())
        let ext = device.installNotificationServiceExtension(appGroupID: nil)
        let run = await ext.receive(chatPayload())
        #expect(run.ran && run.receipt == nil)
        #expect(device.service.requests(.userDelivered).isEmpty)
        device.deliver(chatPayload())
        device.deliver(chatPayload())
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 1)
    }

    @Test func aFailedReceiptInTheExtensionLeavesItToTheApp() async {
        let device = SimulatedDevice()
        await device.launchChatApp(delegate: RecordingChatDelegate())
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        device.service.fail(.userDelivered, with: [.status(400, code: "ERR_BAD_REQUEST")])
        let run = await ext.receive(chatPayload())
        #expect(run.receipt == .failed(.serverError))
        device.deliver(chatPayload())
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 2)
    }

    @Test func campaignIsMarkedDeliveredAndClickedOnceEach() async {
        let device = SimulatedDevice()
        let delegate = RecordingChatDelegate()
        let app = await device.launchChatApp(delegate: delegate)
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        let payload = campaignPayload(id: "ann7")
        // Delivered: extension, foreground and a silent hand-over all see it
        _ = await ext.receive(payload)
        let delivery = device.deliver(payload)
        app.sdk.handleBackgroundNotification(userInfo: payload)
        #expect(await device.settle())
        // Clicked: tapped (twice, as a forwarded response may repeat)
        device.tap(delivery.notification)
        device.tap(delivery.notification)
        #expect(await device.settle())
        #expect(device.service.requests(.campaignDelivered).map { $0.match?.parameter } == ["ann7"])
        #expect(device.service.requests(.campaignClicked).map { $0.match?.parameter } == ["ann7"])
        #expect(delegate.events.filter { $0 == .notificationsFeed }.count == 2)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test func noReceiptBeforeLogin() async {
        let device = SimulatedDevice()
        let app = device.launch { $0.initialize(config: chatConfig()) }
        #expect(await device.settle())
        device.deliver(chatPayload())
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).isEmpty)
        // Logged in later, the next sighting sends it: the failed attempt released its claim
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())
        app.sdk.handleBackgroundNotification(userInfo: chatPayload())
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 1)
    }
}

@Suite struct ReceiptLedgerTests {
    final class Store: PNKeyValueStore, @unchecked Sendable {
        // @unchecked: guarded by `values`, a lock.
        let values = PNLocked<[String: Data]>([:])
        func data(forKey key: String) -> Data? { values.withLock { $0[key] } }
        func set(_ data: Data?, forKey key: String) { values.withLock { $0[key] = data } }
    }

    let store = Store()
    let time = PNLocked(Date(timeIntervalSince1970: 1_800_000_000))

    func ledger(_ nonce: String) -> PNReceiptLedger {
        let time = self.time
        return PNReceiptLedger(store: store, now: { time.current }, makeNonce: { nonce })
    }

    @Test func secondProcessSeesTheClaimThenTheSentRecord() {
        let app = ledger("app"), ext = ledger("ext")
        #expect(ext.claim(.messageDelivered, id: "m1") == .granted(nonce: "ext"))
        #expect(app.claim(.messageDelivered, id: "m1") == .heldElsewhere)
        ext.markSent(.messageDelivered, id: "m1", nonce: "ext")
        #expect(app.claim(.messageDelivered, id: "m1") == .alreadySent)
        #expect(app.claim(.campaignDelivered, id: "m1") == .granted(nonce: "app"))
    }

    @Test func releasedOrAbandonedClaimsCanBeTakenOver() {
        let app = ledger("app"), ext = ledger("ext")
        #expect(ext.claim(.messageDelivered, id: "m2") == .granted(nonce: "ext"))
        ext.release(.messageDelivered, id: "m2", nonce: "ext")
        #expect(app.claim(.messageDelivered, id: "m2") == .granted(nonce: "app"))
        // The app is killed while sending: after the claim's lifetime the extension takes over
        time.withLock { $0 = $0.addingTimeInterval(PNReceiptLedger.claimLifetime + 1) }
        #expect(ext.claim(.messageDelivered, id: "m2") == .granted(nonce: "ext"))
        // A late release by the old owner does not drop the new claim
        app.release(.messageDelivered, id: "m2", nonce: "app")
        #expect(app.claim(.messageDelivered, id: "m2") == .heldElsewhere)
    }

    @Test func oldRecordsAreCleanedUp() {
        let app = ledger("app")
        #expect(app.claim(.messageDelivered, id: "old") == .granted(nonce: "app"))
        app.markSent(.messageDelivered, id: "old", nonce: "app")
        time.withLock { $0 = $0.addingTimeInterval(PNReceiptLedger.retention + 1) }
        #expect(app.claim(.messageDelivered, id: "new") == .granted(nonce: "app"))
        #expect(!app.isSent(.messageDelivered, id: "old"))
    }
}
