import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

/// Rule 26: iOS may suspend a background app as soon as its fetch completion handler runs, so
/// the SDK's completion must come after the receipt went out.
@Suite struct SilentPushTests {
    let device = SimulatedDevice()

    @Test("With the completion form, the receipt goes out before the app is suspended")
    func completionAfterTheReceipt() async {
        let app = await device.launchChatApp(chatConfig(appGroup: nil), delegate: RecordingChatDelegate())
        app.sendToBackground()
        let result = PNLocked<PNBackgroundFetchResult?>(nil)
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in SimulatedDevice.withContentAvailable(chatPayload(messageId: "m9")) { userInfo[key] = value }
        app.sdk.handleBackgroundNotification(userInfo: userInfo) { outcome in result.withLock { $0 = outcome } }
        #expect(await device.settle())
        #expect(result.current == .newData)
        #expect(device.service.requests(.userDelivered).count == 1)
        #expect(app.application.openBackgroundTasks.isEmpty, "the background task ended")
    }

    @Test(
        "The device suspends a background app when its fetch handler completes: the guide's form keeps the receipt, completing at once loses it"
    )
    func suspendedAtCompletion() async {
        let app = await device.launchChatApp(chatConfig(appGroup: nil), delegate: RecordingChatDelegate())
        app.sendToBackground()
        #expect(device.deliverSilent(SimulatedDevice.withContentAvailable(chatPayload(messageId: "m1"))))
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 1)
        #expect(app.process.isSuspended)

        app.bringToForeground()
        app.sendToBackground()
        #expect(device.deliverSilent(SimulatedDevice.withContentAvailable(chatPayload(messageId: "m2")), completesAtOnce: true))
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 1, "the second receipt never left the suspended app")
    }

    @Test("A push the SDK does not act on completes with noData")
    func notACometChatPush() async {
        let app = await device.launchChatApp(delegate: RecordingChatDelegate())
        let result = PNLocked<PNBackgroundFetchResult?>(nil)
        app.sdk.handleBackgroundNotification(userInfo: ["aps": ["content-available": 1]]) { outcome in
            result.withLock { $0 = outcome }
        }
        #expect(await device.settle())
        #expect(result.current == .noData)
    }
}
