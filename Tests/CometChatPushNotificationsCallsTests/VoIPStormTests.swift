import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// PushKit calls its delegate on one serial queue, so pushes that arrive together are handled
/// one after the other and each callback's CallKit reports are its own. The simulated PushKit
/// does the same (issue 29): a storm of VoIP pushes delivered from several threads at once must
/// leave no app killed, no push unreported and every completion run once; and an app that
/// reports one push's call inside another push's callback is caught.
@Suite("VoIP storm", .serialized)
struct VoIPStormTests {
    /// 300 pushes, from 4 threads at once: new calls, their duplicates and their cancels.
    static func storm(_ h: CallsHarness) async {
        let pushKit: SimulatedPushKit = h.calls.pushKit
        // Push i: a new call (i % 3 == 0), its duplicate (1), its cancel (2).
        @Sendable func payload(_ index: Int) -> [AnyHashable: Any] {
            let session = "storm-\(index / 3)"
            return callPush(index % 3 == 2 ? "cancelled" : "initiated", session: session, from: "caller\(index % 7)")
        }
        // Four threads, as four connections of APNs would hand pushes over at once.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for thread in 0..<4 {
                group.enter()
                Thread.detachNewThread {
                    for index in stride(from: thread, to: 300, by: 4) { pushKit.deliver(payload(index)) }
                    group.leave()
                }
            }
            group.notify(queue: .global()) { done.resume() }
        }
        await h.settle()
    }

    @Test("300 VoIP pushes from four threads: none killed, none unreported, every completion once (20 rounds)")
    func stormFromFourThreads() async {
        for round in 1...20 {
            let h = await CallsHarness()
            await Self.storm(h)
            let deliveries = h.calls.pushKit.deliveries
            #expect(deliveries.count == 300, "round \(round)")
            #expect(h.calls.kills == [], "round \(round)")
            #expect(deliveries.filter { !$0.reportedInCallback }.count == 0, "round \(round)")
            #expect(deliveries.filter { $0.completions != 1 }.count == 0, "round \(round)")
            #expect(deliveries.filter { !$0.completedInOrder }.count == 0, "round \(round)")
            h.expectRulesHeld()
        }
    }

    @Test("An app that reports push B's call while it handles push A is killed at B")
    func reportsAreCreditedToTheCallbackThatMadeThem() async {
        let device = SimulatedDevice(backgroundModes: ["voip"])
        let calls = device.calls
        let callKit = calls.callKit
        device.launch { _ in }
        calls.pushKit.appOwnsRegistry { push, completion in
            // Wrong: handling A, it reports A's and B's calls; B's own callback then reports
            // nothing, since "B is already reported".
            guard push.payload["sessionId"] as? String == "A" else { return completion() }
            let answers = Countdown(2, then: completion)
            for name in ["A", "B"] {
                let report = PNIncomingCallReport(uuid: UUID(), callerName: name, handle: name, hasVideo: false)
                callKit.reportNewIncomingCall(report) { _ in answers.tick() }
            }
        }
        let first = calls.pushKit.deliver(callPush(session: "A"))
        await callKit.drain()
        #expect(first.reportedInCallback)
        #expect(calls.kills == [])
        let second = calls.pushKit.deliver(callPush(session: "B"))
        #expect(!second.reportedInCallback)
        #expect(calls.kills.count == 1)
        #expect(device.app == nil)
    }
}

/// Runs `then` when `tick()` was called `count` times.
private final class Countdown: @unchecked Sendable {
    // @unchecked: `left` is only touched under `lock`.
    private let lock = NSLock()
    private var left: Int
    private let then: @Sendable () -> Void

    init(_ count: Int, then: @escaping @Sendable () -> Void) {
        left = count
        self.then = then
    }

    func tick() {
        let done = lock.withLock { () -> Bool in
            left -= 1
            return left == 0
        }
        if done { then() }
    }
}
