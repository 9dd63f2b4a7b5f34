import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// The calls configuration against a self-hosted service in private mode.
func privateCallsConfig() -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: "apns-provider", extensionGroupID: "group.app1",
        clientHost: "https://push.example.com", callKit: CallKitBranding(name: "Acme", iconTemplateImageName: "CallIcon"))
}

/// Private VoIP pushes (issue 28): decrypted inside the PushKit callback, before the report.
@Suite("Private push: calls")
struct PrivateCallTests {
    /// The VoIP token's registered keys.
    func voipKeys(_ h: CallsHarness) throws -> SimulatedPrivatePush.Keys {
        try #require(h.device.service.encryptionKeys(token: PNHex.string(SimulatedDevice.token(0xA0))))
    }

    /// A standard call push as a plain dictionary, to encrypt.
    func standard(_ action: String = "initiated", session: String = "s1") -> [String: Any] {
        var out: [String: Any] = [:]
        for (key, value) in callPush(action, session: session, type: "video") { if let key = key as? String { out[key] = value } }
        return out
    }

    func userInfo(_ payload: [String: Any]) -> [AnyHashable: Any] {
        var out: [AnyHashable: Any] = [:]
        for (key, value) in payload { out[key] = value }
        return out
    }

    @Test("A private VoIP push rings with the caller's name in CallKit and answers as the standard one")
    func privateCallShowsTheCaller() async throws {
        let h = await CallsHarness(config: privateCallsConfig())
        let push = try SimulatedPrivatePush.voip(standard(), for: try voipKeys(h))
        #expect(push["sender"] == nil && push["senderName"] == nil && push["sessionId"] == nil)
        let delivery = await h.deliver(userInfo(push))
        #expect(delivery.reportedInCallback)
        let report = try #require(h.calls.callKit.reports.last?.report)
        #expect(report.callerName == "Bob" && report.handle == "bob" && report.hasVideo)
        #expect(h.calls.callKit.ringingCalls == [report.uuid])
        h.calls.callKit.answer()
        await h.settle()
        let call = try #require(h.delegate.presentedCalls.first)
        #expect(call.sessionId == "s1" && call.callerUid == "bob" && call.callerName == "Bob")
        #expect(call.rawPayload["enc"] == nil && call.rawPayload["sessionId"] as? String == "s1")
        h.expectRulesHeld()
    }

    @Test("A private cancel ends the private call it is about")
    func privateCancel() async throws {
        let h = await CallsHarness(config: privateCallsConfig())
        let keys = try voipKeys(h)
        await h.deliver(userInfo(try SimulatedPrivatePush.voip(standard(), for: keys)))
        let uuid = try #require(h.calls.callKit.ringingCalls.first)
        await h.deliver(userInfo(try SimulatedPrivatePush.voip(standard("cancelled"), for: keys, pushId: "push-2")))
        #expect(h.calls.callKit.callState(uuid) == .ended(PNCallKitEndedReason.remoteEnded.rawValue))
        #expect(h.delegate.endReasons == [.cancelled])
        h.expectRulesHeld()
    }

    @Test("A keyless VoIP push (type, callAction, sessionId only) rings as \"Incoming call\" and can be answered")
    func keylessCallRings() async throws {
        let h = await CallsHarness(config: privateCallsConfig())
        let push = try SimulatedPrivatePush.voip(standard(), for: nil)
        #expect(Set(push.keys) == ["aps", "type", "callAction", "sessionId", "pushId"])
        await h.deliver(userInfo(push))
        let report = try #require(h.calls.callKit.reports.last?.report)
        #expect(report.callerName == "Incoming call")
        #expect(h.calls.callKit.ringingCalls == [report.uuid])
        h.calls.callKit.answer()
        await h.settle()
        let call = try #require(h.delegate.presentedCalls.first)
        #expect(call.sessionId == "s1" && call.callerName == "Incoming call")
        #expect(h.calls.callKit.activeCalls == [report.uuid])
        h.expectRulesHeld()
    }

    @Test("A VoIP push that cannot be decrypted is still reported, as an unknown caller, and ended as failed", arguments: 0..<3)
    func undecryptableIsReportedAndEnded(_ index: Int) async throws {
        let h = await CallsHarness(config: privateCallsConfig())
        let keys = try voipKeys(h)
        var push = try SimulatedPrivatePush.voip(standard(), for: keys)
        switch index {
        case 0:  // a key from another device
            let other = try PNPlatform.systemPushCrypto.generateP256KeyPair()
            push = try SimulatedPrivatePush.voip(standard(), for: .init(p256dh: PNBase64URL.encode(other.publicKey), auth: keys.auth))
        case 1:  // a wrong tag
            var message = try #require(PNBase64URL.decode(push["enc"] as? String ?? ""))
            message[message.count - 1] ^= 0x01
            push["enc"] = PNBase64URL.encode(message)
        default:  // truncated
            push["enc"] = String((push["enc"] as? String ?? "").prefix(60))
        }
        let delivery = await h.deliver(userInfo(push))
        #expect(delivery.reportedInCallback && delivery.completedInOrder)
        let report = try #require(h.calls.callKit.reports.last?.report)
        #expect(report.callerName == "Incoming call" && report.handle == "unknown")
        #expect(h.calls.callKit.callState(report.uuid) == .ended(PNCallKitEndedReason.failed.rawValue))
        #expect(h.calls.callKit.ringingCalls.isEmpty && h.delegate.presentedCalls.isEmpty)
        let failure = (h.sdk.getDiagnostics()["privatePush"] as? [String: Any])?["lastDecryptionFailure"] as? [String: String]
        #expect(failure?["code"] == ["authenticationFailed", "authenticationFailed", "malformed"][index])
        h.expectRulesHeld()
    }

    @Test("The simulator kills an app that drops a VoIP push it cannot decrypt instead of reporting it (rule 9)")
    func droppingAnUndecryptablePushIsCaught() async throws {
        let device = SimulatedDevice(backgroundModes: ["voip"])
        let calls = device.calls
        device.launch { _ in }
        // A wrong client: it cannot decrypt the push, so it completes without a report.
        calls.pushKit.appOwnsRegistry { push, completion in
            if push.payload["enc"] != nil { return completion() }
        }
        let delivery = calls.pushKit.deliver(["aps": [String: Any](), "pushId": "p1", "enc": "AAAA"])
        #expect(!delivery.reportedInCallback)
        #expect(calls.kills.count == 1)
        #expect(device.app == nil)
    }
}
