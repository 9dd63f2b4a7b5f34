// One process of the two-process receipt test (ReceiptTests' `twoProcessesRacingOnOneAppGroup`).
//
//   ReceiptRaceHelper <containers root> <app|extension|mixed> <campaign id> <message id>
//
// Plays a simulated device whose App Group container is `<containers root>/AppGroups/…`, shared
// with the other helper process: launches the chat app (logged in, the session shared with the
// extension), prints `ready`, waits for a line on standard input, then sees one campaign push
// and one chat message many times at once:
//
//   app        foreground deliveries, background hand-overs and taps of the app
//   extension  two Notification Service Extension runs for each push
//   mixed      both
//
// and prints the receipts this process sent: `campaignDelivered=… campaignClicked=… messageDelivered=…`.
import Foundation
import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

let arguments = CommandLine.arguments
guard arguments.count == 5, ["app", "extension", "mixed"].contains(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: ReceiptRaceHelper <root> <app|extension|mixed> <campaign id> <message id>\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments[1], isDirectory: true)
let role = arguments[2]
let campaignId = arguments[3]
let messageId = arguments[4]
let appGroup = "group.com.example.chat"

@Sendable func campaignPayload() -> [String: Any] {
    [
        "source": "campaign", "id": campaignId, "campaignId": "camp1", "title": "Sale", "body": "50% off",
        "aps": ["alert": ["title": "Sale", "body": "50% off"], "mutable-content": 1] as [String: Any],
    ]
}

@Sendable func chatPayload() -> [String: Any] {
    [
        "type": "chat", "title": "Bob", "body": "Hello", "sender": "bob", "senderName": "Bob", "receiver": "alice",
        "receiverName": "Alice", "receiverType": "user", "conversationId": "alice_user_bob", "tag": messageId,
        "sentAt": "1800000000000",
        "aps": ["alert": ["title": "Bob", "body": "Hello"], "mutable-content": 1, "category": "MessageCategory"]
            as [String: Any],
    ]
}

func run() async -> Int32 {
    let device = SimulatedDevice(containers: SimulatedContainers(root: root))
    let app = device.launch { sdk in
        sdk.initialize(config: PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", extensionGroupID: appGroup))
    }
    device.logInToChatSDK(uid: "alice", authToken: "alice-token")
    guard await device.settle() else { return 3 }
    let extensions = (0..<2).map { _ in device.installNotificationServiceExtension(appGroupID: appGroup) }
    var campaignInfo: [AnyHashable: Any] = [:]
    for (key, value) in campaignPayload() { campaignInfo[key] = value }
    let shown = PNNotification(identifier: "campaign", userInfo: campaignInfo)

    FileHandle.standardOutput.write(Data("ready\n".utf8))
    guard readLine() != nil else { return 4 }

    await withTaskGroup(of: Void.self) { group in
        if role != "app" {
            for ext in extensions {
                group.addTask { _ = await ext.receive(campaignPayload()) }
                group.addTask { _ = await ext.receive(chatPayload()) }
            }
        }
        if role != "extension" {
            for index in 0..<24 {
                let act: @Sendable () -> Void
                switch index % 3 {
                case 0: act = { device.deliver(index.isMultiple(of: 2) ? campaignPayload() : chatPayload()) }
                case 1:
                    act = { app.sdk.handleBackgroundNotification(userInfo: index.isMultiple(of: 2) ? campaignPayload() : chatPayload()) }
                default: act = { device.tap(shown) }
                }
                group.addTask {
                    await withCheckedContinuation { done in
                        DispatchQueue.global().async {
                            act()
                            done.resume()
                        }
                    }
                }
            }
        }
    }
    guard await device.settle() else { return 5 }
    let service = device.service
    let counts =
        "campaignDelivered=\(service.requests(.campaignDelivered).count) "
        + "campaignClicked=\(service.requests(.campaignClicked).count) "
        + "messageDelivered=\(service.requests(.userDelivered).count)\n"
    FileHandle.standardOutput.write(Data(counts.utf8))
    return 0
}

exit(await run())
