import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// Call waiting (issue 29 part 2): a second call while one is answered rings beside it, and the
/// user's Hold & Accept, End & Accept or Decline reaches the app.
@Suite("Call waiting")
struct CallWaitingTests {
    /// Alice talks to Bob (s1, answered), and Carol calls (s2).
    private func talkingWhileCarolCalls(media: RecordingMediaSession? = nil) async throws -> (CallsHarness, first: UUID, waiting: UUID) {
        let h = await CallsHarness()
        h.sdk.calls.mediaSession = media
        await h.deliver(callPush(session: "s1"))
        h.calls.callKit.answer()
        await h.settle()
        let first = try #require(h.calls.callKit.activeCalls.first)
        let delivery = await h.deliver(callPush(session: "s2", from: "carol", name: "Carol", type: "video"))
        #expect(delivery.reportedInCallback)
        let waiting = try #require(h.calls.callKit.ringingCalls.first)
        return (h, first, waiting)
    }

    @Test("A second call while talking rings as a waiting call: CallKit is set up for holding, the first call goes on")
    func secondCallWaits() async throws {
        let (h, first, waiting) = try await talkingWhileCarolCalls()
        #expect(h.calls.callKit.configuration?.supportsHolding == true)
        #expect(h.calls.callKit.activeCalls == [first])
        #expect(h.calls.callKit.ringingCalls == [waiting])
        #expect(h.calls.callKit.reports.last?.report.callerName == "Carol")
        #expect(h.sdk.calls.activeCall?.sessionId == "s1")
        #expect(h.sdk.calls.waitingCall?.sessionId == "s2")
        let diagnostics = h.sdk.getDiagnostics()
        #expect((diagnostics["waitingCall"] as? [String: Any])?["state"] as? String == "ringing")
        #expect(h.statusRequests.isEmpty)
        #expect(h.delegate.endedCalls.isEmpty)
        h.expectRulesHeld()
    }

    @Test("Hold & Accept: the first call is held through CallKit, the app hears of it, the second is presented with live audio")
    func holdAndAccept() async throws {
        let media = RecordingMediaSession()
        let (h, first, waiting) = try await talkingWhileCarolCalls(media: media)
        let configurations = h.calls.callKit.audioConfigurations.count
        // When
        #expect(h.calls.callKit.answerHoldingActive())
        await h.settle()
        // Then the first is on hold, the second answered
        #expect(h.calls.callKit.heldCalls == [first])
        #expect(Set(h.calls.callKit.activeCalls) == [first, waiting])
        #expect(h.delegate.holdChanges.map { "\($0.call.sessionId) \($0.onHold)" } == ["s1 true"])
        #expect(h.delegate.presentedCalls.map(\.sessionId) == ["s1", "s2"])
        #expect(h.delegate.endedCalls.isEmpty)
        #expect(h.sdk.calls.activeCall?.sessionId == "s2")
        // The session stayed active: not configured again (rule 12), the media told at once
        #expect(h.calls.callKit.audioConfigurations.count == configurations)
        #expect(media.events.suffix(2) == ["prepare s2", "audio s2"])
        // When Carol's call ends, Bob's is still held until the user resumes it
        h.calls.callKit.hangUp(waiting)
        await h.settle()
        #expect(h.delegate.endReasons == [.localEnded])
        #expect(h.calls.callKit.heldCalls == [first])
        #expect(h.sdk.calls.waitingCall == nil)
        #expect(h.calls.callKit.setHeld(false))
        await h.settle()
        #expect(h.delegate.holdChanges.map { "\($0.call.sessionId) \($0.onHold)" } == ["s1 true", "s1 false"])
        #expect(h.calls.callKit.heldCalls.isEmpty)
        #expect(h.statusRequests.isEmpty)
        h.expectRulesHeld()
        withExtendedLifetime(media) {}
    }

    @Test("End & Accept: the first call ends as localEnded, the second is presented after the session is configured")
    func endAndAccept() async throws {
        let media = RecordingMediaSession()
        let (h, first, waiting) = try await talkingWhileCarolCalls(media: media)
        #expect(h.calls.callKit.answerEndingActive())
        await h.settle()
        #expect(h.calls.callKit.callState(first) == .ended("endedByUser"))
        #expect(h.calls.callKit.activeCalls == [waiting])
        #expect(h.delegate.endedCalls.map { "\($0.call.sessionId) \($0.reason.name)" } == ["s1 localEnded"])
        #expect(h.delegate.presentedCalls.map(\.sessionId) == ["s1", "s2"])
        #expect(h.delegate.holdChanges.isEmpty)
        #expect(h.sdk.calls.activeCall?.sessionId == "s2")
        #expect(h.sdk.calls.waitingCall == nil)
        #expect(media.events.suffix(3) == ["prepare s2", "audio off", "audio s2"])
        #expect(h.statusRequests.isEmpty)
        // Carol's call is now the one in progress: the next call waits beside it
        await h.deliver(callPush(session: "s3", from: "dave"))
        #expect(h.sdk.calls.waitingCall?.sessionId == "s3")
        h.expectRulesHeld()
        withExtendedLifetime(media) {}
    }

    @Test("Decline a waiting call: the caller is told busy, the first call goes on untouched")
    func declineWaiting() async throws {
        let (h, first, waiting) = try await talkingWhileCarolCalls()
        h.calls.callKit.decline(waiting)
        await h.settle()
        #expect(h.statusRequests == ["s2 busy"])
        #expect(h.delegate.endedCalls.map { "\($0.call.sessionId) \($0.reason.name)" } == ["s2 declined"])
        #expect(h.calls.callKit.activeCalls == [first])
        #expect(h.calls.callKit.heldCalls.isEmpty)
        #expect(h.delegate.holdChanges.isEmpty)
        #expect(h.sdk.calls.waitingCall == nil)
        h.expectRulesHeld()
    }

    @Test("Declined from the app's own UI, a waiting call is busy too")
    func declineWaitingFromApp() async throws {
        let (h, first, _) = try await talkingWhileCarolCalls()
        try await h.sdk.calls.declineAndWait(sessionId: "s2")
        await h.settle()
        #expect(h.statusRequests == ["s2 busy"])
        #expect(h.calls.callKit.activeCalls == [first])
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        h.expectRulesHeld()
    }

    @Test("A waiting call nobody answers times out on its own; the first call goes on")
    func waitingTimesOut() async throws {
        let (h, first, waiting) = try await talkingWhileCarolCalls()
        await h.advance(by: 46)
        #expect(h.calls.callKit.callState(waiting) == .ended("unanswered"))
        #expect(h.statusRequests == ["s2 unanswered"])
        #expect(h.delegate.endReasons == [.timedOut])
        #expect(h.calls.callKit.activeCalls == [first])
        h.expectRulesHeld()
    }

    @Test("The waiting caller gives up: the waiting call ends as cancelled")
    func waitingCancelled() async throws {
        let (h, first, waiting) = try await talkingWhileCarolCalls()
        await h.deliver(callPush("cancelled", session: "s2", from: "carol"))
        #expect(h.calls.callKit.callState(waiting) == .ended("remoteEnded"))
        #expect(h.delegate.endReasons == [.cancelled])
        #expect(h.calls.callKit.activeCalls == [first])
        #expect(h.sdk.calls.waitingCall == nil)
        h.expectRulesHeld()
    }

    @Test("Hold, resume and Swap on the CallKit screen reach the delegate")
    func holdFromCallKit() async throws {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        h.calls.callKit.answer()
        await h.settle()
        #expect(h.calls.callKit.setHeld(true))
        await h.settle()
        #expect(h.calls.callKit.setHeld(false))
        await h.settle()
        #expect(h.delegate.holdChanges.map { "\($0.call.sessionId) \($0.onHold)" } == ["s1 true", "s1 false"])
        // With two calls, resuming the held one holds the other first (Swap)
        await h.deliver(callPush(session: "s2", from: "carol"))
        #expect(h.calls.callKit.answerHoldingActive())
        await h.settle()
        let first = try #require(h.calls.callKit.heldCalls.first)
        #expect(h.calls.callKit.setHeld(false, first))
        await h.settle()
        #expect(
            h.delegate.holdChanges.map { "\($0.call.sessionId) \($0.onHold)" }
                == ["s1 true", "s1 false", "s1 true", "s2 true", "s1 false"])
        #expect(h.sdk.calls.activeCall?.sessionId == "s1")
        h.expectRulesHeld()
    }

    @Test("The held first call ends: the second becomes the call in progress, and a new call waits beside it")
    func heldCallEnds() async throws {
        let (h, first, waiting) = try await talkingWhileCarolCalls()
        #expect(h.calls.callKit.answerHoldingActive())
        await h.settle()
        h.sdk.calls.reportCallEnded(sessionId: "s1", reason: .remoteEnded)
        await h.settle()
        #expect(h.calls.callKit.callState(first) == .ended("remoteEnded"))
        #expect(h.calls.callKit.activeCalls == [waiting])
        #expect(h.sdk.calls.activeCall?.sessionId == "s2")
        #expect(h.sdk.calls.waitingCall == nil)
        await h.deliver(callPush(session: "s3", from: "dave"))
        #expect(h.sdk.calls.waitingCall?.sessionId == "s3")
        #expect(h.statusRequests.isEmpty)
        h.expectRulesHeld()
    }

    @Test("Logging out with two calls ends both as failed")
    func logoutEndsBoth() async throws {
        let (h, _, _) = try await talkingWhileCarolCalls()
        h.device.logOutOfChatSDK()
        await h.settle()
        #expect(Set(h.delegate.endedCalls.map { "\($0.call.sessionId) \($0.reason.name)" }) == ["s1 failed", "s2 failed"])
        #expect(h.calls.callKit.activeCalls.isEmpty)
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        h.expectRulesHeld()
    }

    @Test("The simulated CallKit offers Hold & Accept only to a provider configured for holding")
    func holdNeedsConfiguration() async throws {
        let (h, _, _) = try await talkingWhileCarolCalls()
        let configuration = try #require(h.calls.callKit.configuration)
        var withoutHolding = configuration
        withoutHolding.supportsHolding = false
        h.calls.callKit.configure(
            withoutHolding,
            actions: PNCallKitActions(
                answer: { _, done in done(false) }, end: { _, done in done(true) }, setMuted: { _, _ in false },
                audioActivated: {}, audioDeactivated: {}, reset: {}))
        #expect(!h.calls.callKit.answerHoldingActive())
        #expect(!h.calls.callKit.setHeld(true))
        #expect(h.calls.callKit.heldCalls.isEmpty)
    }
}
