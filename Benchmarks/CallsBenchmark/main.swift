import Foundation
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

// Time from a VoIP push's delivery to its CallKit report, on the simulated device, through the
// real Calls product: PushKit callback → payload parsing → state machine → reportNewIncomingCall.
// The report must happen synchronously inside the PushKit callback (the VoIP rule), so the
// number is the work done on PushKit's thread before CallKit hears of the call.
//
//   swift run -c release CallsBenchmark [iterations]

let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 5_000

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func push(_ action: String, _ session: String) -> [AnyHashable: Any] {
    [
        "aps": [:] as [String: Any], "type": "call", "callAction": action, "sessionId": session, "callType": "video",
        "sender": "bob", "senderName": "Bob", "senderAvatar": "https://example.com/bob.png",
        "receiver": "alice", "receiverType": "user", "conversationId": "alice_user_bob", "body": "VIDEO CALL",
    ]
}

let device = SimulatedDevice(
    permission: .authorized, backgroundModes: ["remote-notification", "voip"], clock: SimulatedClock(autoAdvanceLimit: 0))
let calls = device.calls
calls.pushKit.issueToken(SimulatedDevice.token(0xA0))
let delegate = RecordingCallsDelegate()
device.launch { sdk in
    sdk.delegate = delegate
    sdk.initialize(config: PNConfiguration(appId: "bench", region: "us", providerId: "apns"))
}
device.logInToChatSDK(uid: "alice", authToken: "alice-token")
_ = await device.settle()

var ring: [Double] = []
var turnedAway: [Double] = []
var callbackTotal: [Double] = []
var synchronous = 0
var inOrder = 0
let warmup = 200
for index in 0..<(warmup + iterations) {
    let session = "bench-\(index)"
    let start = DispatchTime.now().uptimeNanoseconds
    let ringing = calls.pushKit.deliver(push("initiated", session))
    let returned = DispatchTime.now().uptimeNanoseconds
    let cancel = calls.pushKit.deliver(push("cancelled", session))
    if index >= warmup {
        if let ns = ringing.reportLatencyNanoseconds { ring.append(Double(ns) / 1_000) }
        if let ns = cancel.reportLatencyNanoseconds { turnedAway.append(Double(ns) / 1_000) }
        callbackTotal.append(Double(returned - start) / 1_000)
        if ringing.reportedInCallback && cancel.reportedInCallback { synchronous += 1 }
    }
    if index % 250 == 249 {
        await calls.callKit.drain()
        _ = await device.settle()
    }
}
await calls.callKit.drain()
_ = await device.settle()
for delivery in calls.pushKit.deliveries.suffix(2 * iterations) where delivery.completedInOrder { inOrder += 1 }

ring.sort()
turnedAway.sort()
callbackTotal.sort()
func line(_ name: String, _ values: [Double]) -> String {
    String(
        format: "%@ median %.1f µs, p90 %.1f µs, p99 %.1f µs, max %.1f µs",
        name, percentile(values, 0.5), percentile(values, 0.9), percentile(values, 0.99), values.last ?? 0)
}
print("CallsBenchmark: \(iterations) calls (each an initiated push that rings, then a cancelled push), simulated device")
print(line("push → CallKit report (new call):       ", ring))
print(line("push → CallKit report (cancel, re-report):", turnedAway))
print(line("whole PushKit callback (new call):       ", callbackTotal))
print("reported synchronously inside the PushKit callback: \(synchronous)/\(iterations) calls")
print(
    "completions after CallKit's answer: \(inOrder)/\(2 * iterations) pushes; app killed: \(calls.kills.count) times; rule violations: \(calls.callKit.violations.count)"
)
