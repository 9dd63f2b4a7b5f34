import Foundation

/// A product module (Chat, Calls) that Core installs at `initialize` when it is linked.
///
/// Core finds products at run time by class name (`NSClassFromString` on a module-qualified
/// name), so it never imports them and apps write no code to install them. For the SDK's own
/// products; not for apps.
@_spi(PNProducts)
public protocol PNProductModule: AnyObject, Sendable {
    /// Creates the product; Core calls this once per SDK instance.
    init()
    /// The product's module name, as listed in diagnostics.
    static var moduleName: String { get }
    /// Called during `initialize(config:)`, after the configuration is validated and before
    /// `initialize` returns (PushKit's registry must exist by the end of launch).
    func install(into sdk: CometChatPushNotifications, config: PNConfiguration)
    /// Extra diagnostics, without secrets.
    func diagnostics() -> [String: Any]
    /// What the product finds that could silence a ring, or `.ready`.
    func ringReadiness() async -> PNRingReadiness
    /// The user logged out, or the service rejected the session.
    func sessionDidEnd() async

    /// A chat notification was tapped. Called on the callback queue once a delegate is set.
    /// Return `true` when the product navigated (for example through `navigateToChat(for:)`);
    /// `false` (the delegate does not implement that method, or the payload names no user or
    /// group) lets Core call `didTapNotification(_:)`, then `navigateToDefaultScreen()`.
    func handleChatTap(_ info: CometChatNotificationInfo, delegate: CometChatPushNotificationsDelegate) -> Bool
    /// A campaign notification was tapped: send its clicked receipt. Called when the tap
    /// arrives, before Core calls `navigateToNotificationsFeed()`.
    func handleCampaignTap(_ info: CometChatNotificationInfo)
    /// The user typed `text` in the Reply action of a chat notification. Return `true` to take
    /// it: the product sends it and calls `completion` when done (iOS keeps the app awake until
    /// then). `false` leaves it to Core, which reports it through `didTapNotification(_:)`.
    func handleReply(
        _ text: String, to info: CometChatNotificationInfo,
        completion: @escaping @Sendable () -> Void
    ) -> Bool
    /// The user opened (tapped) a notification that carries a push id from a self-hosted
    /// service: send the opened call once per push id. Called when the tap arrives.
    func handleOpened(_ info: CometChatNotificationInfo)
    /// A chat or campaign push was delivered: shown in the foreground (`inForeground`), or handed
    /// over silently through `handleBackgroundNotification(userInfo:)`. For delivered receipts;
    /// `completion` runs once the product's work for it is done (or abandoned).
    func handleDelivery(_ info: CometChatNotificationInfo, inForeground: Bool, completion: @escaping @Sendable () -> Void)
    /// The product's notification categories, read once the products are installed. Core sets
    /// them together with `MessageCategory` (setting categories replaces them all, rule 4).
    var notificationCategories: [PNNotificationCategory] { get }
    /// The user responded to a notification (a tap, an action, a dismissal). Called before Core
    /// routes it, on the thread iOS called the delegate on. Return `true` to take it: the
    /// product handles it and calls `completion` once (iOS keeps the app awake until then).
    /// `false` leaves it to Core.
    func handleResponse(
        _ response: PNNotificationResponse, info: CometChatNotificationInfo, completion: @escaping @Sendable () -> Void
    ) -> Bool
}

@_spi(PNProducts)
extension PNProductModule {
    /// No extra diagnostics.
    public func diagnostics() -> [String: Any] { [:] }
    /// Nothing to add.
    public func ringReadiness() async -> PNRingReadiness { .ready }
    /// Nothing to do.
    public func sessionDidEnd() async {}
    /// Not handled.
    public func handleChatTap(_ info: CometChatNotificationInfo, delegate: CometChatPushNotificationsDelegate) -> Bool {
        false
    }
    /// No receipt.
    public func handleCampaignTap(_ info: CometChatNotificationInfo) {}
    /// No opened call.
    public func handleOpened(_ info: CometChatNotificationInfo) {}
    /// Not taken.
    public func handleReply(
        _ text: String, to info: CometChatNotificationInfo,
        completion: @escaping @Sendable () -> Void
    ) -> Bool {
        false
    }
    /// No receipt.
    public func handleDelivery(
        _ info: CometChatNotificationInfo, inForeground: Bool, completion: @escaping @Sendable () -> Void
    ) {
        completion()
    }
    /// None.
    public var notificationCategories: [PNNotificationCategory] { [] }
    /// Not taken.
    public func handleResponse(
        _ response: PNNotificationResponse, info: CometChatNotificationInfo, completion: @escaping @Sendable () -> Void
    ) -> Bool {
        false
    }
}

/// The class names Core looks for, in installation order.
enum ProductDiscovery {
    static let classNames = [
        "CometChatPushNotificationsChat.PNChatProduct",
        "CometChatPushNotificationsCalls.PNCallsProduct",
    ]

    static func linkedProducts() -> [PNProductModule.Type] {
        classNames.compactMap { NSClassFromString($0) as? PNProductModule.Type }
    }
}
