import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

@Suite("Ring readiness and diagnostics")
struct ReadinessTests {
    @Test("Everything in place: ready, and the microphone was asked once at initialize")
    func ready() async {
        let h = await CallsHarness()
        #expect(await h.readiness() == .ready)
        #expect(h.calls.microphone.prompts == 1)
    }

    @Test("No voip background mode")
    func backgroundMode() async {
        let h = await CallsHarness(backgroundModes: ["remote-notification"])
        #expect(await h.readiness() == .backgroundModeMissing)
    }

    @Test("No VoIP token ever arrived")
    func entitlement() async {
        let h = await CallsHarness(voipToken: false)
        #expect(await h.readiness() == .voipEntitlementMissing)
    }

    @Test("Microphone denied")
    func microphone() async {
        let h = await CallsHarness()
        h.calls.microphone.current = .denied
        #expect(await h.readiness() == .microphoneDenied)
    }

    @Test("requestCallPermissions off: no prompt at initialize; requestCallPermissions() asks")
    func permissionsOnDemand() async {
        let h = await CallsHarness(requestCallPermissions: false)
        #expect(h.calls.microphone.prompts == 0)
        h.calls.microphone.userAnswer = false
        let granted: Bool = await withCheckedContinuation { continuation in
            h.sdk.calls.requestCallPermissions { continuation.resume(returning: $0) }
        }
        #expect(!granted)
        #expect(h.calls.microphone.prompts == 1)
        #expect(await h.readiness() == .microphoneDenied)
    }

    @Test("activeCall describes the ringing call without names or payload")
    func diagnostics() async throws {
        let h = await CallsHarness()
        #expect(h.sdk.getDiagnostics()["activeCall"] as? String == "none")
        await h.deliver(callPush(session: "s1", from: "bob", name: "Bob Secret", type: "video", receiver: "team", group: true))
        let diagnostics = h.sdk.getDiagnostics()
        let active = try #require(diagnostics["activeCall"] as? [String: Any])
        #expect(active["sessionId"] as? String == "s1")
        #expect(active["state"] as? String == "ringing")
        #expect(active["callType"] as? String == "video")
        #expect(active["isGroup"] as? Bool == true)
        #expect(!"\(diagnostics)".contains("Bob Secret"))
        #expect(!"\(diagnostics)".contains("alice-token"))
        #expect((diagnostics["products"] as? [String])?.contains("CometChatPushNotificationsCalls") == true)
    }
}
