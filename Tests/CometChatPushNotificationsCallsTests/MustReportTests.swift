import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// iOS 26.4's `PKVoIPPushMetadata.mustReport` (issue 29): false while the app is in the
/// foreground or already has a call, and then a push that does not ring a new call is handled
/// without a CallKit report, so no call screen flashes; true, and behaviour is as before.
@Suite("iOS 26.4: mustReport")
struct MustReportTests {
    /// A harness on iOS 26.4's PushKit.
    static func harness(ownership: PNPushKitOwnership = .sdk) async -> CallsHarness {
        let h = await CallsHarness(ownership: ownership)
        h.calls.pushKit.mode = .iOS26_4
        return h
    }

    @Test("A late cancel in the foreground (mustReport false) shows no call and is not reported")
    func lateCancelInTheForeground() async {
        let h = await Self.harness()
        h.app.bringToForeground()
        await h.settle()
        let reports = h.calls.callKit.reportCount
        let delivery = await h.deliver(callPush("cancelled", session: "late"))
        #expect(!delivery.mustReport)
        #expect(!delivery.reportedInCallback)
        #expect(delivery.completions == 1)
        #expect(h.calls.callKit.reportCount == reports)
        #expect(h.calls.callKit.recents.isEmpty)
        h.expectRulesHeld()
    }

    @Test("The same late cancel in the background (mustReport true) is reported and ended, as before iOS 26.4")
    func lateCancelInTheBackground() async {
        let h = await Self.harness()
        h.app.sendToBackground()
        let delivery = await h.deliver(callPush("cancelled", session: "late"))
        #expect(delivery.mustReport)
        #expect(delivery.reportedInCallback)
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        let uuid = h.calls.callKit.reports.last?.report.uuid
        #expect(uuid.flatMap { h.calls.callKit.callState($0) }.map { if case .ended = $0 { true } else { false } } == true)
        h.expectRulesHeld()
    }

    @Test("A new call in the foreground (mustReport false) is still reported and rings")
    func newCallInTheForeground() async {
        let h = await Self.harness()
        h.app.bringToForeground()
        await h.settle()
        let delivery = await h.deliver(callPush("initiated", session: "s1"))
        #expect(!delivery.mustReport)
        #expect(delivery.reportedInCallback)
        #expect(h.calls.callKit.ringingCalls.count == 1)
        h.expectRulesHeld()
    }

    @Test("While a call rings, its cancel (mustReport false) ends it without a second report")
    func cancelOfTheRingingCall() async {
        let h = await Self.harness()
        h.app.sendToBackground()
        let ring = await h.deliver(callPush("initiated", session: "s1"))
        #expect(ring.mustReport)
        #expect(h.calls.callKit.ringingCalls.count == 1)
        let reports = h.calls.callKit.reportCount
        let cancel = await h.deliver(callPush("cancelled", session: "s1"))
        #expect(!cancel.mustReport)
        #expect(h.calls.callKit.reportCount == reports)
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        #expect(h.delegate.endedCalls.map(\.call.sessionId) == ["s1"])
        h.expectRulesHeld()
    }

    @Test("An app-owned registry forwards mustReport: a duplicate in the foreground is not reported")
    func appOwnedRegistryForwardsMustReport() async {
        let h = await Self.harness(ownership: .app)
        let sdk = h.sdk
        h.calls.pushKit.appOwnsRegistry { push, completion in
            sdk.calls.handleIncomingVoIPPush(push.payload, mustReport: push.mustReport, completion: completion)
        }
        h.app.sendToBackground()
        await h.deliver(callPush("initiated", session: "s1"))
        h.app.bringToForeground()
        await h.settle()
        let reports = h.calls.callKit.reportCount
        let duplicate = await h.deliver(callPush("initiated", session: "s1"))
        #expect(!duplicate.mustReport)
        #expect(h.calls.callKit.reportCount == reports)
        #expect(h.calls.callKit.ringingCalls.count == 1)
        h.expectRulesHeld()
    }

    @Test("The simulator kills an app that skips a report only when mustReport is true")
    func simulatorEnforcesMustReport() async {
        let device = SimulatedDevice(backgroundModes: ["voip"])
        let calls = device.calls
        calls.pushKit.mode = .iOS26_4
        let app = device.launch { _ in }
        calls.pushKit.appOwnsRegistry { _, completion in completion() }
        app.bringToForeground()
        let skipped = calls.pushKit.deliver(callPush("cancelled"))
        #expect(!skipped.mustReport)
        #expect(calls.kills == [])
        app.sendToBackground()
        let required = calls.pushKit.deliver(callPush("cancelled", session: "s2"))
        #expect(required.mustReport)
        #expect(calls.kills.count == 1)
        #expect(device.app == nil)
    }
}
