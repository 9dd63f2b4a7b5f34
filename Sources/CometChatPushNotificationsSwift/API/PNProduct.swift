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
}

@_spi(PNProducts)
extension PNProductModule {
    /// No extra diagnostics.
    public func diagnostics() -> [String: Any] { [:] }
    /// Nothing to add.
    public func ringReadiness() async -> PNRingReadiness { .ready }
    /// Nothing to do.
    public func sessionDidEnd() async {}
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
