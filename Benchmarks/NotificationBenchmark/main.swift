// The cost of handling one foreground notification: parse the payload, decide its presentation.
//
//     swift run -c release NotificationBenchmark
//
// Prints the median nanoseconds per notification over many runs, per payload kind.
import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

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
if sink == 42 { print("") }  // keeps the work observable
