import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// PushKit's rule (iOS 13 and later): every VoIP push, valid or not, is reported to CallKit inside the
/// PushKit callback, and the completion runs only after CallKit answered. The simulated iOS
/// kills the app otherwise; here it must never have to.
@Suite("VoIP rule")
struct VoIPRuleTests {
    /// One push variant: what happens before it, and the push itself.
    struct Variant: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// Runs before the push under test; may deliver pushes and act on CallKit.
        let before: @Sendable (CallsHarness) async -> Void
        let payload: PayloadCase
        /// Whether a call is expected to ring after the push under test.
        let ringsAfter: Bool

        init(
            _ name: String, ringsAfter: Bool = false, before: @escaping @Sendable (CallsHarness) async -> Void = { _ in },
            _ payload: @escaping @Sendable () -> [AnyHashable: Any]
        ) {
            testDescription = name
            self.before = before
            self.payload = PayloadCase(name, payload)
            self.ringsAfter = ringsAfter
        }
    }

    static let ringing: @Sendable (CallsHarness) async -> Void = { h in await h.deliver(callPush("initiated", session: "s1")) }
    static let answered: @Sendable (CallsHarness) async -> Void = { h in
        await h.deliver(callPush("initiated", session: "s1"))
        h.calls.callKit.answer()
        await h.settle()
    }

    static let variants: [Variant] = [
        Variant("a new call", ringsAfter: true) { callPush() },
        Variant("a video group call", ringsAfter: true) { callPush(type: "video", receiver: "team", group: true) },
        Variant("numbers where strings belong", ringsAfter: true) {
            ["callAction": "initiated", "sessionId": 42, "sender": 7, "callType": 1]
        },
        Variant("an empty payload") { [:] },
        Variant("no sessionId") { ["callAction": "initiated", "sender": "bob"] },
        Variant("an unknown callAction") { callPush("teleport") },
        Variant("wrong types everywhere") { ["callAction": ["initiated"], "sessionId": ["x": 1], "sender": NSNull()] },
        Variant("a duplicate of the ringing call", ringsAfter: true, before: ringing) { callPush("initiated", session: "s1") },
        Variant("the caller cancels the ringing call", before: ringing) { callPush("cancelled", session: "s1") },
        Variant("answered on another device", before: ringing) { callPush("ongoing", session: "s1") },
        Variant("declined on another device", before: ringing) { callPush("rejected", session: "s1") },
        Variant("cancelled for a call that never rang") { callPush("cancelled", session: "ghost") },
        Variant(
            "ended for a call no longer ringing",
            before: { h in
                await h.deliver(callPush("initiated", session: "s1"))
                await h.deliver(callPush("cancelled", session: "s1"))
            }
        ) { callPush("ended", session: "s1") },
        Variant(
            "a late duplicate of an ended call",
            before: { h in
                await h.deliver(callPush("initiated", session: "s1"))
                await h.deliver(callPush("cancelled", session: "s1"))
            }
        ) { callPush("initiated", session: "s1") },
        Variant("a second call while one rings", ringsAfter: true, before: ringing) { callPush("initiated", session: "s2", from: "carol") },
        Variant("a second call during an answered call (call waiting)", ringsAfter: true, before: answered) {
            callPush("initiated", session: "s2", from: "carol")
        },
        Variant("ongoing echoed for the answered call", before: answered) { callPush("ongoing", session: "s1") },
        Variant("a push for another user") { callPush(receiver: "mallory") },
        Variant(
            "a push after logout",
            before: { h in
                h.device.logOutOfChatSDK()
                await h.settle()
            }
        ) { callPush() },
        Variant("Do Not Disturb refuses the call", before: { h in h.calls.callKit.doNotDisturb = true }) { callPush() },
        Variant("a blocked caller", before: { h in h.calls.callKit.block(handle: "bob") }) { callPush() },
    ]

    @Test("Every push is reported before its completion, and the app is never killed", arguments: variants)
    func reportedBeforeCompletion(variant: Variant) async {
        // Given
        let h = await CallsHarness()
        await variant.before(h)
        let reportsBefore = h.calls.callKit.reportCount
        // When
        let delivery = h.calls.pushKit.deliver(variant.payload.make())
        // Then: reported synchronously, inside the callback
        #expect(delivery.reportedInCallback)
        #expect(h.calls.callKit.reportCount > reportsBefore)
        await h.settle()
        #expect(delivery.completions == 1)
        #expect(delivery.completedInOrder)
        h.expectRulesHeld()
        #expect(!h.calls.callKit.ringingCalls.isEmpty == variant.ringsAfter)
        #expect(h.device.app != nil)
    }

    @Test("A push delivered before initialize (app-owned registry) is reported and ended")
    func beforeInitialize() async {
        // Given: the app owns PushKit and forwards pushes before it calls initialize
        let device = SimulatedDevice(backgroundModes: ["voip"], clock: SimulatedClock(autoAdvanceLimit: 0))
        let calls = device.calls
        let app = device.launch { _ in }
        let sdk = app.sdk
        calls.pushKit.appOwnsRegistry { push, completion in sdk.calls.handleIncomingVoIPPush(push.payload, completion: completion) }
        // When
        let delivery = calls.pushKit.deliver(callPush())
        await calls.callKit.drain()
        await device.settle()
        // Then
        #expect(delivery.reportedInCallback)
        #expect(delivery.completedInOrder)
        #expect(calls.kills == [])
        #expect(calls.callKit.ringingCalls.isEmpty)
    }

    @Test("The simulator kills an app that completes a push without reporting it")
    func simulatorEnforcesTheRule() async {
        // Given: an app that owns PushKit and ignores the VoIP rule
        let device = SimulatedDevice(backgroundModes: ["voip"])
        let calls = device.calls
        device.launch { _ in }
        calls.pushKit.appOwnsRegistry { _, completion in completion() }
        // When
        let delivery = calls.pushKit.deliver(callPush())
        // Then
        #expect(!delivery.reportedInCallback)
        #expect(calls.kills.count == 1)
        #expect(device.app == nil)
    }

    @Test("Rule 10: a completion called after the report but before CallKit answered it gets the app killed")
    func completionBeforeCallKitAnswered() async {
        let device = SimulatedDevice(backgroundModes: ["voip"])
        let calls = device.calls
        let callKit = calls.callKit
        device.launch { _ in }
        calls.pushKit.appOwnsRegistry { _, completion in
            let report = PNIncomingCallReport(uuid: UUID(), callerName: "Bob", handle: "bob", hasVideo: false)
            callKit.reportNewIncomingCall(report) { _ in }
            completion()  // wrong: CallKit answers the report later, on its queue
        }
        let delivery = calls.pushKit.deliver(callPush())
        #expect(delivery.reportedInCallback)
        #expect(calls.kills.count == 1)
        #expect(calls.kills.first?.contains("rule 10") == true)
        #expect(device.app == nil)

        // The right client completes inside CallKit's answer, and lives.
        device.launch { _ in }
        calls.pushKit.appOwnsRegistry { _, completion in
            let report = PNIncomingCallReport(uuid: UUID(), callerName: "Bob", handle: "bob", hasVideo: false)
            callKit.reportNewIncomingCall(report) { _ in completion() }
        }
        let fine = calls.pushKit.deliver(callPush(session: "s2"))
        await callKit.drain()
        #expect(fine.completedInOrder)
        #expect(calls.kills.count == 1)
    }

    @Test("Rule 13: where CallKit is unavailable, an unreported push still gets the app killed")
    func unreportedPushWithoutCallKit() async {
        let device = SimulatedDevice(backgroundModes: ["voip"])
        let calls = device.calls
        calls.callKit.available = false
        device.launch { _ in }
        calls.pushKit.appOwnsRegistry { _, completion in completion() }
        calls.pushKit.deliver(callPush())
        #expect(calls.kills.count == 1)
    }

    @Test("A VoIP push to an app that is not running launches it in the background")
    func pushLaunchesTheApp() async {
        let device = SimulatedDevice(
            permission: .authorized, backgroundModes: ["remote-notification", "voip"],
            clock: SimulatedClock(autoAdvanceLimit: 0))
        let calls = device.calls
        calls.pushKit.issueToken(SimulatedDevice.token(0xA0))
        let delegate = RecordingCallsDelegate()
        device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: callsConfig())
        }
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())
        device.terminate()

        let delivery = calls.pushKit.deliver(callPush(session: "s9"))
        #expect(delivery.launchedTheApp)
        #expect(!delivery.dropped)
        #expect(device.launchCount == 2)
        #expect(device.app?.state == .background)
        #expect(delivery.reportedInCallback)
        #expect(calls.callKit.ringingCalls.count == 1)
        #expect(calls.kills == [])
    }

    @Test("A killed process's calls end with it, and CallKit's buttons no longer reach it")
    func deadProcessCallsEnd() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        let uuid = h.calls.callKit.ringingCalls.first
        #expect(uuid != nil)
        h.device.terminate()
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        #expect(uuid.flatMap { h.calls.callKit.callState($0) } == .ended("failed"))
        h.calls.callKit.answer(uuid)
        await h.calls.callKit.drain()
        #expect(h.calls.callKit.activeCalls.isEmpty, "an ended call cannot be answered")
        #expect(h.device.violations == [], "the SDK sent nothing after its process ended")
    }
}
