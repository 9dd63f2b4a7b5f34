import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

/// A delegate that records the Chat product's callbacks too.
final class RecordingChatDelegate: RecordingDelegate, CometChatPushNotificationsChatDelegate, @unchecked Sendable {
    // @unchecked: the superclass keeps its state behind a lock; this class adds none.
    func navigateToChat(for user: PNUser) { record(.product("user:\(user.uid):\(user.name ?? "-")")) }
    func navigateToChat(for group: PNGroup) { record(.product("group:\(group.guid):\(group.name ?? "-")")) }
    func didFailToSendReply(_ text: String, to info: CometChatNotificationInfo, error: PNError) {
        record(.product("replyFailed:\(text):\(error.code.name)"))
    }
}

let appGroup = "group.com.example.chat"

func chatConfig(appGroup: String? = appGroup) -> PNConfiguration {
    PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", extensionGroupID: appGroup)
}

/// A one-to-one or group chat push as the service sends it (Contract/WIRE-CONTRACT.md §4).
func chatPayload(
    messageId: String = "m1", sender: String = "bob", group: String? = nil, parentId: String? = nil,
    body: String = "Hello **there**", avatar: String? = nil, unread: Any? = nil
) -> [String: Any] {
    var payload: [String: Any] = [
        "type": "chat", "title": "Bob", "body": body, "sender": sender, "senderName": "Bob",
        "receiver": group ?? "alice", "receiverName": group == nil ? "Alice" : "Hikers",
        "receiverType": group == nil ? "user" : "group",
        "conversationId": group.map { "group_\($0)" } ?? "alice_user_\(sender)",
        "tag": messageId, "sentAt": "1800000000000",
        "aps": [
            "alert": ["title": "Bob", "body": body], "mutable-content": 1, "category": "MessageCategory",
            "thread-id": group ?? sender,
        ] as [String: Any],
    ]
    if let parentId { payload["parentId"] = parentId }
    if let avatar { payload["senderAvatar"] = avatar }
    if let unread { payload["unreadMessageCount"] = unread }
    return payload
}

/// A campaign push.
func campaignPayload(id: String = "ann1", image: String? = nil) -> [String: Any] {
    var payload: [String: Any] = [
        "source": "campaign", "id": id, "campaignId": "camp1", "title": "Sale", "body": "50% off",
        "aps": ["alert": ["title": "Sale", "body": "50% off"], "mutable-content": 1] as [String: Any],
    ]
    if let image { payload["image"] = image }
    return payload
}

extension SimulatedDevice {
    /// Launches the app as the guide's AppDelegate does, logs Alice in and settles.
    @discardableResult
    func launchChatApp(_ config: PNConfiguration = chatConfig(), delegate: RecordingChatDelegate?) async -> SimulatedApp {
        let app = launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: config)
        }
        logInToChatSDK(uid: "alice", authToken: "alice-token")
        #expect(await settle())
        return app
    }

    /// The requests of one route, as (path parameter, JSON body, data.text).
    func calls(_ route: WireContract.Route) -> [SimulatedPushService.Request] { service.requests(route) }
}

extension RecordingDelegate.Event {
    /// A tap's outcome, not a token registration.
    var isNavigation: Bool {
        switch self {
        case .registered, .failed: return false
        default: return true
        }
    }
}

/// Runs `body` on a thread of its own and waits for it without blocking a thread of Swift
/// concurrency's pool (one thread per core: a test that blocks one for seconds starves the
/// others, whose waits then time out). `body` must not use `#expect`: it runs outside the test's
/// task, so it returns what it found instead.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// ``offThePool(_:)`` for a `body` that throws.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await offThePool { Result { try body() } }.get()
}

/// Runs `act` on a GCD thread, outside Swift concurrency's pool, and waits for it.
func onAGlobalQueue(_ act: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { done in
        DispatchQueue.global().async {
            act()
            done.resume()
        }
    }
}
