import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

/// The Chat configuration against a self-hosted service (`clientHost` set) or the hosted API.
private func traceConfig(selfHosted: Bool) -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: "apns-provider", extensionGroupID: appGroup,
        clientHost: selfHosted ? "https://push.example.com" : nil)
}

/// A chat push carrying the service's push id.
private func tracedPayload(messageId: String = "m1", pushId: String = "push-1", group: String? = nil) -> [String: Any] {
    var payload = chatPayload(messageId: messageId, group: group)
    payload["pushId"] = pushId
    return payload
}

private func notification(_ payload: [String: Any], id: String = "n1") -> PNNotification {
    var info: [AnyHashable: Any] = [:]
    for (key, value) in payload { info[key] = value }
    return PNNotification(identifier: id, userInfo: info, categoryIdentifier: "MessageCategory")
}

@Suite struct PushIdEchoTests {
    @Test(arguments: [true, false])
    func theAppsDeliveredReceiptEchoesThePushIdOnlyWhenSelfHosted(selfHosted: Bool) async {
        let device = SimulatedDevice(permission: .authorized)
        await device.launchChatApp(traceConfig(selfHosted: selfHosted), delegate: RecordingChatDelegate())
        device.deliver(tracedPayload(messageId: "m1", pushId: "push-1"))
        #expect(await device.settle())
        let receipts = device.calls(.userDelivered).map(\.json)
        #expect(
            receipts == [
                selfHosted ? ["messageId": "m1", "pushId": "push-1", "deliveredBy": "app"] : ["messageId": "m1"]
            ])
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test(arguments: [true, false])
    func theExtensionsDeliveredReceiptSaysItWasTheExtension(selfHosted: Bool) async {
        let device = SimulatedDevice(permission: .authorized)
        await device.launchChatApp(traceConfig(selfHosted: selfHosted), delegate: RecordingChatDelegate())
        let nse = device.installNotificationServiceExtension(appGroupID: appGroup)
        _ = await nse.receive(tracedPayload(messageId: "m2", pushId: "push-2", group: "hikers"))
        #expect(await device.settle())
        let receipts = device.calls(.groupDelivered).map(\.json)
        #expect(
            receipts == [
                selfHosted ? ["messageId": "m2", "pushId": "push-2", "deliveredBy": "extension"] : ["messageId": "m2"]
            ])
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test(arguments: [true, false])
    func aQuickReplyEchoesThePushIdOnlyWhenSelfHosted(selfHosted: Bool) async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = await device.launchChatApp(traceConfig(selfHosted: selfHosted), delegate: RecordingChatDelegate())
        app.sendToBackground()
        try device.reply(to: notification(tracedPayload(pushId: "push-3")), text: "On my way")
        #expect(await device.settle())
        let replies = device.calls(.sendMessage)
        #expect(replies.count == 1)
        #expect(replies.first?.json["pushId"] == (selfHosted ? "push-3" : nil))
        #expect(replies.first?.text == "On my way")
        #expect(device.service.contractViolations.isEmpty)
    }
}

@Suite struct OpenedTests {
    @Test func aTapSendsOpenedOnceAndOnlyWhenSelfHosted() async {
        for selfHosted in [true, false] {
            let device = SimulatedDevice(permission: .authorized)
            await device.launchChatApp(traceConfig(selfHosted: selfHosted), delegate: RecordingChatDelegate())
            let shown = notification(tracedPayload(pushId: "push-4"))
            device.tap(shown)
            device.tap(shown)
            // A push without a push id (the hosted service's) has nothing to echo.
            device.tap(notification(chatPayload(messageId: "m9"), id: "n9"))
            #expect(await device.settle())
            #expect(device.service.openedPushIds == (selfHosted ? ["push-4"] : []))
            #expect(device.service.contractViolations.isEmpty)
        }
    }

    @Test func theOpenedCallIsContractClientPushOpened() async throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Contract/client/push-opened.json")
        let fixture = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let expected = try #require(fixture["request"] as? [String: Any])
        let device = SimulatedDevice(permission: .authorized)
        await device.launchChatApp(traceConfig(selfHosted: true), delegate: RecordingChatDelegate())
        device.tap(notification(tracedPayload(pushId: "push-7")))
        #expect(await device.settle())
        let sent = try #require(device.calls(.pushOpened).first)
        #expect(sent.method == expected["method"] as? String)
        #expect(sent.path == (expected["path"] as? String)?.replacingOccurrences(of: "{pushId}", with: "push-7"))
        let headers = (expected["headers"] as? [String: String] ?? [:]).mapValues {
            $0.replacingOccurrences(of: "{appId}", with: "app1").replacingOccurrences(of: "{authToken}", with: "alice-token")
        }
        #expect(sent.headers == headers)
        #expect(expected["body"] is NSNull && sent.json.isEmpty)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test func aFailedOpenedCallIsRetriedByTheNextTap() async {
        let device = SimulatedDevice(permission: .authorized)
        await device.launchChatApp(traceConfig(selfHosted: true), delegate: RecordingChatDelegate())
        device.service.fail(.pushOpened, with: Array(repeating: .status(400, code: "ERR_BAD_REQUEST"), count: 1))
        let shown = notification(tracedPayload(pushId: "push-5"))
        device.tap(shown)
        #expect(await device.settle())
        device.tap(shown)
        device.tap(shown)
        #expect(await device.settle())
        #expect(device.service.requests(.pushOpened).count == 2)
    }

    /// 64 taps of one push at once, from child tasks and GCD threads, in two processes (two
    /// simulated devices on one container root: the app and another process sharing its App
    /// Group ledger), 50 rounds: exactly one opened call per round.
    @Test func concurrentTapsInTwoProcessesSendOpenedExactlyOnce() async {
        for round in 0..<50 {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("opened-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let devices = [
                SimulatedDevice(permission: .authorized, containers: SimulatedContainers(root: root)),
                SimulatedDevice(permission: .authorized, containers: SimulatedContainers(root: root)),
            ]
            for device in devices { await device.launchChatApp(traceConfig(selfHosted: true), delegate: RecordingChatDelegate()) }
            let pushId = "push-\(round)"
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<64 {
                    let device = devices[index % 2]
                    let act: @Sendable () -> Void = { device.tap(notification(tracedPayload(pushId: pushId))) }
                    if index % 4 < 2 {
                        group.addTask { act() }
                    } else {
                        group.addTask { await onAGlobalQueue(act) }
                    }
                }
            }
            var settled = true
            for device in devices { settled = await device.settle() && settled }
            let opened = devices.map { $0.service.openedPushIds.count }.reduce(0, +)
            guard settled, opened == 1 else {
                Issue.record("round \(round): settled \(settled), opened \(opened) times (should be once)")
                return
            }
        }
    }
}
