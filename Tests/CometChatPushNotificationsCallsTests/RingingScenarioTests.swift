import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

@Suite("Ringing scenarios")
struct RingingScenarioTests {
    @Test("Ring, answer: CallKit shows the caller, presentCall gets the call, audio is configured on activation")
    func ringAndAnswer() async throws {
        // Given
        let h = await CallsHarness()
        // When
        await h.deliver(callPush("initiated", session: "s1", from: "bob", name: "Bob", type: "video"))
        // Then: CallKit rings with the push's caller and the configured branding
        let report = try #require(h.calls.callKit.reports.last?.report)
        #expect(report.callerName == "Bob")
        #expect(report.handle == "bob")
        #expect(report.hasVideo)
        #expect(
            h.calls.callKit.configuration
                == PNCallKitConfiguration(
                    iconTemplateImageName: "CallIcon", ringtone: "ring.caf", includesCallsInRecents: true, supportsVideo: true))
        #expect(h.calls.callKit.ringingCalls == [report.uuid])
        #expect(h.calls.callKit.audioConfigurations.isEmpty)
        // When the user answers
        h.calls.callKit.answer()
        await h.settle()
        // Then
        let call = try #require(h.delegate.presentedCalls.first)
        #expect(call.sessionId == "s1")
        #expect(call.callerUid == "bob")
        #expect(call.callerName == "Bob")
        #expect(call.callerAvatar == URL(string: "https://example.com/bob.png"))
        #expect(call.receiver == "alice")
        #expect(call.callType == .video)
        #expect(!call.isGroup)
        #expect(call.rawPayload["sessionId"] as? String == "s1")
        #expect(h.calls.callKit.activeCalls == [report.uuid])
        #expect(h.calls.callKit.audioConfigurations == [false], "configured before CallKit activated the session")
        #expect(h.delegate.endedCalls.isEmpty)
        #expect(h.statusRequests.isEmpty)
        let active = try #require(h.sdk.getDiagnostics()["activeCall"] as? [String: Any])
        #expect(active["state"] as? String == "active")
        h.expectRulesHeld()
    }

    @Test("An answered call the app cannot present fails")
    func presentCallFalse() async {
        let h = await CallsHarness()
        h.delegate.presentCallAnswer = false
        await h.deliver(callPush())
        let uuid = h.calls.callKit.ringingCalls.first
        h.calls.callKit.answer()
        await h.settle()
        #expect(h.delegate.presentedCalls.count == 1)
        #expect(h.delegate.endReasons == [.failed])
        #expect(uuid.flatMap { h.calls.callKit.callState($0) } != .active)
        #expect(h.calls.callKit.activeCalls.isEmpty)
        h.expectRulesHeld()
    }

    @Test("Decline on the call screen sends rejected and ends the call as declined")
    func declineOnCallKit() async {
        let h = await CallsHarness()
        await h.ringAndDecline(callPush(session: "s1"))
        #expect(h.statusRequests == ["s1 rejected"])
        #expect(h.device.service.requests(.callStatus).first?.headers["authToken"] == "alice-token")
        #expect(h.delegate.endReasons == [.declined])
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        #expect(h.calls.callKit.recents.map(\.missed) == [false])
        h.expectRulesHeld()
    }

    @Test("A session id with reserved and non-ASCII characters reaches the service as it is")
    func statusPathEncodesTheSessionId() async {
        let h = await CallsHarness()
        await h.ringAndDecline(callPush(session: "v1.us:grp+1 é@x"))
        #expect(h.statusRequests == ["v1.us:grp+1 é@x rejected"])
        h.expectRulesHeld()
    }

    @Test("A status the service did not answer is sent again 2 s and then 4 s later, three times in all")
    func statusRetriedWhenUnanswered() async {
        let h = await CallsHarness()
        h.device.service.fail(.callStatus, with: [.network, .status(503, code: "ERR_UNAVAILABLE"), .network])
        await h.ringAndDecline(callPush(session: "s1"))
        #expect(h.statusRequests == ["s1 rejected"])
        await h.advance(by: 2)
        #expect(h.statusRequests == ["s1 rejected", "s1 rejected"])
        await h.advance(by: 4)
        #expect(h.statusRequests.count == 3)
        await h.advance(by: 600)
        #expect(h.statusRequests.count == 3, "three attempts in all")
        #expect(h.device.clock.sleeps.suffix(2) == [2, 4])
        #expect(h.delegate.endReasons == [.declined])
    }

    @Test("A status the service answered with an error (500, 4xx) is not sent again", arguments: [500, 400])
    func statusNotRetriedWhenRefused(status: Int) async {
        let h = await CallsHarness()
        h.device.service.fail(.callStatus, with: [.status(status, code: "ERR_OPERATION_FAILED")])
        await h.ringAndDecline(callPush(session: "s1"))
        await h.advance(by: 600)
        #expect(h.statusRequests == ["s1 rejected"])
        #expect(h.device.clock.suspendedSleepers == 0)
    }

    @Test("decline(sessionId:) from the app's UI stops the ring and sends rejected")
    func declineFromApp() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        let result: PNResult<Void> = await withCheckedContinuation { continuation in
            h.sdk.calls.decline(sessionId: "s1") { continuation.resume(returning: $0) }
        }
        await h.settle()
        #expect((try? result.get()) != nil)
        #expect(h.statusRequests == ["s1 rejected"])
        #expect(h.delegate.endReasons == [.declined])
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        h.expectRulesHeld()
    }

    @Test("The caller cancels: callDidEnd(.cancelled), a missed call in Recents, nothing sent")
    func callerCancels() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        await h.deliver(callPush("cancelled", session: "s1"))
        #expect(h.delegate.endReasons == [.cancelled])
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        #expect(h.calls.callKit.recents.map(\.missed) == [true])
        #expect(h.statusRequests.isEmpty)
        #expect(h.sdk.getDiagnostics()["activeCall"] as? String == "none")
        h.expectRulesHeld()
    }

    @Test("No answer within 45 s: unanswered is sent and the call is missed in Recents")
    func ringTimeout() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1", name: "Bob"))
        // When 44 seconds pass, it still rings
        h.device.clock.advance(by: 44)
        await h.settle()
        #expect(h.calls.callKit.ringingCalls.count == 1)
        #expect(h.statusRequests.isEmpty)
        // When the 45th passes
        h.device.clock.advance(by: 1)
        await h.settle()
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        #expect(h.statusRequests == ["s1 unanswered"])
        #expect(h.delegate.endReasons == [.timedOut])
        #expect(h.calls.callKit.recents == [.init(callerName: "Bob", handle: "bob", hasVideo: false, missed: true)])
        h.expectRulesHeld()
    }

    @Test("Answered before the timeout: the timer never fires")
    func answerCancelsTimer() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        h.calls.callKit.answer()
        await h.settle()
        h.device.clock.advance(by: 120)
        await h.settle()
        #expect(h.statusRequests.isEmpty)
        #expect(h.delegate.endReasons.isEmpty)
        #expect(h.calls.callKit.activeCalls.count == 1)
    }

    @Test("Hang up, mute and reportCallEnded reach the right places")
    func answeredCallEndings() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        h.calls.callKit.answer()
        await h.settle()
        let uuid = h.calls.callKit.activeCalls.first!
        h.calls.callKit.setMuted(true)
        await h.settle()
        #expect(h.calls.callKit.isMuted(uuid))
        #expect((h.sdk.getDiagnostics()["activeCall"] as? [String: Any])?["muted"] as? Bool == true)
        h.calls.callKit.hangUp()
        await h.settle()
        #expect(h.delegate.endReasons == [.localEnded])
        #expect(!h.calls.callKit.audioActive)
        // A second call the other side ends, reported by the app
        await h.deliver(callPush(session: "s2"))
        h.calls.callKit.answer()
        await h.settle()
        h.sdk.calls.reportCallEnded(sessionId: "s2", reason: .remoteEnded)
        await h.settle()
        #expect(h.delegate.endReasons == [.localEnded, .remoteEnded])
        #expect(h.calls.callKit.activeCalls.isEmpty)
        // A third call the user hangs up in the app's own UI: a CXEndCallAction, so CallKit
        // records it as ended here, not by the other side
        await h.deliver(callPush(session: "s3"))
        h.calls.callKit.answer()
        await h.settle()
        let third = h.calls.callKit.activeCalls.first!
        h.sdk.calls.reportCallEnded(sessionId: "s3", reason: .localEnded)
        await h.settle()
        #expect(h.calls.callKit.callState(third) == .ended("endedByUser"))
        #expect(h.delegate.endReasons == [.localEnded, .remoteEnded, .localEnded])
        #expect(h.statusRequests.isEmpty)
        h.expectRulesHeld()
    }

    @Test("The media session is prepared while ringing and gets audio only on activation")
    func mediaSession() async {
        let h = await CallsHarness()
        let media = RecordingMediaSession()
        h.sdk.calls.mediaSession = media
        await h.deliver(callPush(session: "s1"))
        #expect(media.events == ["prepare s1"])
        h.calls.callKit.answer()
        await h.settle()
        #expect(media.events == ["prepare s1", "audio s1"])
        // A call waiting is prepared too, and dropped when its caller gives up
        await h.deliver(callPush(session: "s2", from: "carol"))
        await h.deliver(callPush("cancelled", session: "s2", from: "carol"))
        #expect(media.events == ["prepare s1", "audio s1", "prepare s2", "cancel s2"])
        h.sdk.calls.reportCallEnded(sessionId: "s1", reason: .localEnded)
        await h.settle()
        await h.deliver(callPush(session: "s3"))
        await h.deliver(callPush("cancelled", session: "s3"))
        #expect(media.events.suffix(3) == ["audio off", "prepare s3", "cancel s3"])
        withExtendedLifetime(media) {}
    }

    @Test(
        "Where CallKit is not used, the app never registers for VoIP pushes (iOS would kill it)",
        arguments: [(regionAllows: false, availability: PNCallKitAvailability.automatic), (true, .unavailable)])
    func regionWithoutCallKit(regionAllows: Bool, availability: PNCallKitAvailability) async {
        let device = SimulatedDevice(
            permission: .authorized, backgroundModes: ["remote-notification", "voip"],
            clock: SimulatedClock(autoAdvanceLimit: 0))
        let calls = device.calls
        calls.callKit.available = regionAllows
        calls.pushKit.issueToken(SimulatedDevice.token(0xA0))
        let delegate = RecordingCallsDelegate()
        let app = device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: callsConfig(callKitAvailability: availability))
        }
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())
        #expect(calls.pushKit.registriesCreated == 0)
        #expect(calls.callKit.configuration == nil)
        let registered = device.service.registrations(authToken: "alice-token")
        #expect(registered.count == 1)
        #expect(!registered.contains { $0.platform == "apns_ios_voip" })
        // A push PushKit still had for the app finds no registry: it is dropped, and nobody is killed.
        let delivery = calls.pushKit.deliver(callPush(session: "s1"))
        #expect(delivery.dropped)
        #expect(calls.kills == [])
        #expect(device.violations == [])
        withExtendedLifetime(app) {}
    }

    @Test("The app's callKitAvailability: .available overrides the region setting")
    func appOverridesRegion() async {
        let device = SimulatedDevice(
            permission: .authorized, backgroundModes: ["remote-notification", "voip"],
            clock: SimulatedClock(autoAdvanceLimit: 0))
        let calls = device.calls
        calls.callKit.available = false  // the user set the region to China; the app knows better
        calls.pushKit.issueToken(SimulatedDevice.token(0xA0))
        let app = device.launch { sdk in sdk.initialize(config: callsConfig(callKitAvailability: .available)) }
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())
        #expect(calls.pushKit.registriesCreated == 1)
        #expect(device.service.registrations(authToken: "alice-token").contains { $0.platform == "apns_ios_voip" })
        withExtendedLifetime(app) {}
    }
}

/// Records what the SDK asks of the app's media session.
final class RecordingMediaSession: NSObject, PNCallMediaSession, @unchecked Sendable {
    // @unchecked: all mutable state is inside `log`.
    private let log = NSLock()
    private var recorded: [String] = []
    var events: [String] { log.withLock { recorded } }
    private func add(_ event: String) { log.withLock { recorded.append(event) } }
    func prepare(for call: IncomingCall) { add("prepare \(call.sessionId)") }
    func cancelPreparation(for call: IncomingCall) { add("cancel \(call.sessionId)") }
    func audioSessionDidActivate(for call: IncomingCall) { add("audio \(call.sessionId)") }
    func audioSessionDidDeactivate() { add("audio off") }
    func setMuted(_ muted: Bool, for call: IncomingCall) { add("muted \(muted)") }
}
