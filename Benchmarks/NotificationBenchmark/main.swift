// The cost of handling one foreground notification: parse the payload, decide its presentation;
// and of a private push (issue 28): decrypt `enc` (RFC 8291, OpenSSL on Linux) with the key in
// the simulated keychain, then parse and decide.
//
//     swift run -c release NotificationBenchmark
//
// Prints the median nanoseconds per notification over many runs, per payload kind.
import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let fixtures = ["chat-user", "chat-group", "chat-thread-reply", "call-initiated-alert", "campaign"]
let payloads: [(String, [AnyHashable: Any])] = fixtures.map { name in
    let url = root.appendingPathComponent("Contract/payloads/\(name).json")
    guard let data = try? Data(contentsOf: url),
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else {
        fatalError("cannot read \(url.path)")
    }
    var payload: [AnyHashable: Any] = [:]
    for (key, value) in json { payload[key] = value }
    return (name, payload)
}

let policy = PNForegroundPolicy(showInAppNotifications: true, enableBadgeCount: true, activeConversation: .user("carol"))
let runs = 51
let perRun = 1_000
var sink = 0

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

var all: [Double] = []
for (name, payload) in payloads {
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<perRun {
            guard let info = CometChatPushNotifications.parseNotificationInfo(from: payload) else { continue }
            sink &+= policy.decide(info).options.rawValue
        }
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(perRun))
    }
    all.append(contentsOf: samples)
    print("\(name.padding(toLength: 22, withPad: " ", startingAt: 0))median \(Int(median(samples))) ns per parse + decision")
}
print(
    String(
        format: "all kinds             median %7.0f ns per parse + decision (%d runs x %d notifications)",
        median(all), runs * payloads.count, perRun))

// Private push: a device that registered its key with a self-hosted service, and the same
// payloads encrypted for it as the service sends them.
let device = SimulatedDevice()
let app = device.launch { sdk in
    sdk.initialize(
        config: PNConfiguration(
            appId: "app1", region: "us", providerId: "apns-provider", extensionGroupID: "group.bench",
            clientHost: "https://push.example.com"))
}
device.logInToChatSDK(uid: "bob", authToken: "bob-token")
guard await device.settle(), let keys = device.service.encryptionKeys(token: PNHex.string(SimulatedDevice.token(1))) else {
    fatalError("the simulated device registered no private push key")
}
var privateSamples: [Double] = []
let privateRuns = 21
let privatePerRun = 200
for (name, payload) in payloads {
    var standard: [String: Any] = [:]
    for (key, value) in payload { if let key = key as? String { standard[key] = value } }
    var sealed: [AnyHashable: Any] = [:]
    for (key, value) in try SimulatedPrivatePush.alert(standard, for: keys) { sealed[key] = value }
    var samples: [Double] = []
    for _ in 0..<privateRuns {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<privatePerRun {
            guard case .opened(let opened) = app.sdk.openPrivatePushInApp(sealed),
                let info = CometChatPushNotifications.parseNotificationInfo(from: opened)
            else { fatalError("a private push did not open") }
            sink &+= policy.decide(info).options.rawValue
        }
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(privatePerRun))
    }
    privateSamples.append(contentsOf: samples)
    print(
        "\(("private " + name).padding(toLength: 30, withPad: " ", startingAt: 0))median \(Int(median(samples) / 1000)) µs per decrypt + parse + decision"
    )
}
print(
    String(
        format: "private, all kinds            median %5.0f µs per decrypt + parse + decision (%d runs x %d pushes; target < 200 µs)",
        median(privateSamples) / 1000, privateRuns * payloads.count, privatePerRun))
if sink == 42 { print("") }  // keeps the work observable
