import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// A product with a category of its own, which takes the responses to its notifications.
final class FakeCategoryProduct: PNProductModule, @unchecked Sendable {
    // @unchecked: mutable state is lock-protected.
    static var moduleName: String { "FakeCategoryProduct" }
    static let category = PNNotificationCategory(
        identifier: "FakeCategory", actions: [PNNotificationAction(identifier: "FAKE_ACTION", title: "Fake", options: [.foreground])])
    private let log = PNLocked<[String]>([])

    init() {}
    func install(into sdk: CometChatPushNotifications, config: PNConfiguration) {}

    /// The responses taken, as `<action> <notification identifier>`.
    var taken: [String] { log.current }

    var notificationCategories: [PNNotificationCategory] { [Self.category] }

    func handleResponse(
        _ response: PNNotificationResponse, info: CometChatNotificationInfo, completion: @escaping @Sendable () -> Void
    ) -> Bool {
        guard response.notification.categoryIdentifier == Self.category.identifier else { return false }
        log.withLock { $0.append("\(response.action) \(response.notification.identifier)") }
        DispatchQueue.main.async { completion() }  // later, as after work; settle() drains it
        return true
    }
}

@Suite("Product hooks: categories and responses")
struct ProductHookTests {
    let device = SimulatedDevice()
    let delegate = RecordingDelegate()

    @Test("A product's categories join MessageCategory; without any, the categories are set once")
    func categoriesJoin() async {
        let app = await device.launchAndSettle(notificationConfig(), delegate: delegate)
        #expect(device.notificationCenter.categorySetCount == 1)
        app.sdk.installForTest(FakeCategoryProduct())
        app.sdk.installProductCategories()
        #expect(device.notificationCenter.categories.map(\.identifier) == ["MessageCategory", "FakeCategory"])
        #expect(device.notificationCenter.categorySetCount == 2)
    }

    @Test("A response the product takes goes to it, not to Core's routing; others are routed as before")
    func responsesGoToTheProduct() async throws {
        let app = await device.launchAndSettle(notificationConfig(), delegate: delegate)
        let product = FakeCategoryProduct()
        app.sdk.installForTest(product)
        app.sdk.installProductCategories()
        app.sendToBackground()
        var payload = try contractPayload("chat-user")
        var aps = payload["aps"] as? [String: Any] ?? [:]
        aps["category"] = "FakeCategory"
        payload["aps"] = aps
        let own = device.deliver(payload, identifier: "own-1").notification
        let tap = device.tap(own)
        #expect(await device.settle())
        let other = device.deliver(payload, identifier: "own-2").notification
        let action = try device.perform("FAKE_ACTION", on: other)
        #expect(await device.settle())
        #expect(product.taken == ["open own-1", "custom(\"FAKE_ACTION\") own-2"])
        #expect(tap.completionCalls == 1 && action.completionCalls == 1)
        #expect(delegate.events.isEmpty, "Core did not route them")
        // A chat notification is not the product's: Core routes it.
        let chat = device.deliver(try contractPayload("chat-user")).notification
        device.tap(chat)
        #expect(await device.settle())
        #expect(delegate.events == [.tapped("chat")])
        #expect(product.taken.count == 2)
    }

    @Test("The simulated device offers only the buttons of the notification's registered category")
    func performNeedsTheButton() async throws {
        await device.launchAndSettle(notificationConfig(), delegate: delegate)
        let chat = device.deliver(try contractPayload("chat-user")).notification
        #expect(throws: SimulatedError.self) { try device.perform("FAKE_ACTION", on: chat) }
        #expect(throws: SimulatedError.self) { try device.perform(CometChatPushNotifications.replyActionIdentifier, on: chat) }
    }
}
