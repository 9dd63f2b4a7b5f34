import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

@Suite("Busy, logout and report failures")
struct BusyAndLogoutTests {
    @Test("A third call, while one is answered and one waits, is reported, ended at once and answered busy")
    func thirdCallBusy() async throws {
        // Given a call in progress and a second one waiting
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        h.calls.callKit.answer()
        await h.settle()
        let first = try #require(h.calls.callKit.activeCalls.first)
        await h.deliver(callPush(session: "s2", from: "carol", name: "Carol"))
        let waiting = try #require(h.calls.callKit.ringingCalls.first)
        // When dave calls
        let delivery = await h.deliver(callPush(session: "s3", from: "dave", name: "Dave"))
        // Then
        #expect(delivery.reportedInCallback)
        let third = try #require(h.calls.callKit.reports.last)
        #expect(third.report.callerName == "Dave")
        #expect(h.calls.callKit.callState(third.report.uuid) == .ended("unanswered"))
        #expect(h.calls.callKit.activeCalls == [first])
        #expect(h.calls.callKit.ringingCalls == [waiting])
        #expect(h.statusRequests == ["s3 busy"])
        #expect(h.delegate.endedCalls.map(\.call.sessionId) == ["s3"])
        #expect(h.delegate.endReasons == [.busy])
        h.expectRulesHeld()
    }

    @Test("A second call while the first still rings is reported, ended at once and answered busy")
    func secondCallWhileRingingBusy() async throws {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        let first = try #require(h.calls.callKit.ringingCalls.first)
        await h.deliver(callPush(session: "s2", from: "carol", name: "Carol"))
        #expect(h.calls.callKit.ringingCalls == [first])
        #expect(h.statusRequests == ["s2 busy"])
        #expect(h.delegate.endReasons == [.busy])
        #expect(h.sdk.calls.waitingCall == nil)
        h.expectRulesHeld()
    }

    @Test("While the app's own outgoing call runs, an incoming call rings (the app holds its call); a third is busy")
    func outgoingThenIncoming() async {
        let h = await CallsHarness()
        h.sdk.calls.reportOutgoingCallStarted(sessionId: "out1")
        await h.deliver(callPush(session: "s2"))
        #expect(h.calls.callKit.ringingCalls.count == 1)
        #expect(h.statusRequests.isEmpty)
        // CallKit knows no other call: the user gets a plain Answer
        h.calls.callKit.answer()
        await h.settle()
        #expect(h.delegate.presentedCalls.map(\.sessionId) == ["s2"])
        await h.deliver(callPush(session: "s3", from: "carol"))
        #expect(h.calls.callKit.ringingCalls.count == 1, "s3 waits beside the answered s2")
        await h.deliver(callPush(session: "s4", from: "dave"))
        #expect(h.statusRequests == ["s4 busy"])
        h.expectRulesHeld()
    }

    @Test("Logout while ringing ends the call as failed; later pushes are reported and ended")
    func logoutWhileRinging() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        // When
        h.device.logOutOfChatSDK()
        await h.settle()
        // Then
        #expect(h.delegate.endReasons == [.failed])
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        // A push that still arrives rings nothing
        let delivery = await h.deliver(callPush(session: "s2"))
        #expect(delivery.reportedInCallback)
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        #expect(h.delegate.presentedCalls.isEmpty)
        #expect(h.statusRequests.isEmpty)
        // Logging in again rings again
        h.device.logInToChatSDK(uid: "alice", authToken: "alice-token-2")
        await h.settle()
        await h.deliver(callPush(session: "s3"))
        #expect(h.calls.callKit.ringingCalls.count == 1)
        h.expectRulesHeld()
    }

    @Test("Logout during an answered call ends it as failed")
    func logoutWhileAnswered() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        h.calls.callKit.answer()
        await h.settle()
        h.sdk.clearSession()
        h.device.logOutOfChatSDK()
        await h.settle()
        #expect(h.delegate.endReasons == [.failed])
        #expect(h.calls.callKit.activeCalls.isEmpty)
        h.expectRulesHeld()
    }

    @Test("CallKit refuses the call (Do Not Disturb): it ends as failed and the completion still runs")
    func reportFailure() async {
        let h = await CallsHarness()
        h.calls.callKit.doNotDisturb = true
        let delivery = await h.deliver(callPush(session: "s1"))
        #expect(h.calls.callKit.reports.last?.error == .filteredByDoNotDisturb)
        #expect(delivery.completedInOrder)
        #expect(h.delegate.endReasons == [.failed])
        #expect(h.sdk.getDiagnostics()["activeCall"] as? String == "none")
        // The next call, after Do Not Disturb, rings
        h.calls.callKit.doNotDisturb = false
        await h.deliver(callPush(session: "s2"))
        #expect(h.calls.callKit.ringingCalls.count == 1)
        h.expectRulesHeld()
    }
}
