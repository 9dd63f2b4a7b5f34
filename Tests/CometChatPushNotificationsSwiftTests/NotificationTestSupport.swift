import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// A well-formed payload of `Contract/payloads/`, by file name without `.json`.
func contractPayload(_ name: String) throws -> [String: Any] {
    let url = repositoryRoot.appendingPathComponent("Contract/payloads/\(name).json")
    return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
}

/// Every well-formed payload fixture's name.
func contractPayloadNames() -> [String] {
    let directory = repositoryRoot.appendingPathComponent("Contract/payloads")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
}

/// A configuration with the notification options under test.
func notificationConfig(showInAppNotifications: Bool = true, enableBadgeCount: Bool = true) -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: "apns-provider",
        enableBadgeCount: enableBadgeCount, showInAppNotifications: showInAppNotifications)
}

/// A stand-in for the Chat product: records the hooks Core calls.
final class FakeChatProduct: PNProductModule, @unchecked Sendable {
    // @unchecked: mutable state is lock-protected.
    static var moduleName: String { "FakeChatProduct" }
    private let log = PNLocked<[String]>([])
    private let navigates = PNLocked(true)

    init() {}
    func install(into sdk: CometChatPushNotifications, config: PNConfiguration) {}

    /// The hooks called, in order.
    var calls: [String] { log.current }
    /// Whether chat taps are handled (the delegate implements `navigateToChat`).
    func setNavigates(_ value: Bool) { navigates.withLock { $0 = value } }

    func handleChatTap(_ info: CometChatNotificationInfo, delegate: CometChatPushNotificationsDelegate) -> Bool {
        log.withLock { $0.append("chatTap:\(info.receiverType.name):\(info.conversationId ?? "-")") }
        return navigates.current
    }
    func handleCampaignTap(_ info: CometChatNotificationInfo) {
        log.withLock { $0.append("clicked:\(info.campaignId ?? "-")") }
    }
    func handleReply(
        _ text: String, to info: CometChatNotificationInfo,
        completion: @escaping @Sendable () -> Void
    ) -> Bool {
        log.withLock { $0.append("reply:\(text)") }
        DispatchQueue.main.async { completion() }  // later, as after a request; settle() drains it
        return true
    }
    func handleDelivery(_ info: CometChatNotificationInfo, inForeground: Bool, completion: @escaping @Sendable () -> Void) {
        log.withLock { $0.append("delivered:\(info.kind.name):\(inForeground ? "foreground" : "background")") }
        DispatchQueue.main.async { completion() }  // later, as after a request
    }
}

extension CometChatPushNotifications {
    /// Installs a product as `initialize` would when it is linked.
    func installForTest(_ product: PNProductModule) {
        state.withLock { $0.products.append(product) }
    }
}

/// A delegate that implements only `navigateToDefaultScreen()`.
final class DefaultScreenOnlyDelegate: NSObject, CometChatPushNotificationsDelegate, @unchecked Sendable {
    // @unchecked: mutable state is lock-protected.
    private let count = PNLocked(0)
    var defaultScreens: Int { count.current }
    func navigateToDefaultScreen() { count.withLock { $0 += 1 } }
}
