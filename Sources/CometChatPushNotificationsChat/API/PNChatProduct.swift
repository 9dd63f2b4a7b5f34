import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The Chat product. Core installs it at `initialize` when the app links
/// `CometChatPushNotificationsChat` (it finds the class by name); apps never create it.
///
/// It routes chat taps to `navigateToChat(for:)`, sends quick replies, and sends delivered
/// receipts for chat messages and delivered/clicked receipts for campaign pushes, once each
/// across the app and its Notification Service Extension.
///
/// No `@objc` name: Core looks it up by its module-qualified Swift name.
@_spi(PNProducts)
public final class PNChatProduct: NSObject, PNProductModule {

    /// `CometChatPushNotificationsChat`.
    public static let moduleName = "CometChatPushNotificationsChat"

    private struct State {
        weak var sdk: CometChatPushNotifications?
        var appGroupID: String?
    }
    private let state = PNLocked(State())

    /// Created by Core, once per SDK instance.
    public required override init() { super.init() }

    /// Keeps the SDK and the App Group for receipts.
    public func install(into sdk: CometChatPushNotifications, config: PNConfiguration) {
        state.withLock {
            $0.sdk = sdk
            $0.appGroupID = config.extensionGroupID
        }
    }

    /// Where receipts are recorded.
    public func diagnostics() -> [String: Any] {
        let group = state.withLock { $0.appGroupID }
        return ["chatReceiptLedger": group == nil ? "app (no App Group: the app sends delivered receipts)" : "appGroup"]
    }

    // MARK: Taps

    /// Calls `navigateToChat(for:)` with the push's user or group.
    public func handleChatTap(_ info: CometChatNotificationInfo, delegate: CometChatPushNotificationsDelegate) -> Bool {
        guard let chat = delegate as? CometChatPushNotificationsChatDelegate else { return false }
        if let group = PNGroup(notification: info) { return chat.pnNavigateToChat(group) }
        if let user = PNUser(notification: info) { return chat.pnNavigateToChat(user) }
        return false
    }

    /// Sends the campaign's clicked receipt.
    public func handleCampaignTap(_ info: CometChatNotificationInfo) {
        runReceipt { sender, deadline in _ = await sender.campaign(info, clicked: true, deadline: deadline) }
    }

    /// Sends the opened call of a self-hosted service's push, once per push id across threads
    /// and processes (claim kind ``PNReceiptLedger/Kind/pushOpened``).
    public func handleOpened(_ info: CometChatNotificationInfo) {
        runReceipt { sender, deadline in _ = await sender.opened(info, deadline: deadline) }
    }

    /// Sends the delivered receipt of a chat message or campaign push the app saw first.
    public func handleDelivery(
        _ info: CometChatNotificationInfo, inForeground: Bool, completion: @escaping @Sendable () -> Void
    ) {
        runReceipt(completion: completion) { sender, deadline in _ = await sender.delivered(info, deadline: deadline) }
    }

    // MARK: Quick reply

    /// Sends the reply inside background time, then calls `completion`.
    public func handleReply(
        _ text: String, to info: CometChatNotificationInfo,
        completion: @escaping @Sendable () -> Void
    ) -> Bool {
        guard let sdk = state.withLock({ $0.sdk }) else { return false }
        QuickReply(sdk: sdk, text: text, info: info, completion: completion).start()
        return true
    }

    // MARK: Receipts

    private func runReceipt(
        completion: @escaping @Sendable () -> Void = {}, _ body: @escaping @Sendable (ReceiptSender, Date) async -> Void
    ) {
        let (sdk, group) = state.withLock { ($0.sdk, $0.appGroupID) }
        guard let sdk else { return completion() }
        let platform = sdk.runtimePlatform
        let ports = PNChatPorts.from(platform)
        // The App Group's container, shared with the extension; the app's own without one (or
        // when the App Group is out of reach: then the extension cannot send receipts either).
        guard
            let directory = group.flatMap({ ports.receiptDirectory(appGroupID: $0) })
                ?? ports.receiptDirectory(appGroupID: nil)
        else {
            platform.logger.log(.error, "No container directory for the receipt ledger; no receipt was sent.")
            return completion()
        }
        let clock = platform.clock
        let sender = ReceiptSender(
            ledger: PNReceiptLedger(directory: directory, now: { clock.now() }), client: AppSessionClient(sdk: sdk),
            clock: clock, logger: platform.logger)
        sdk.beginWork()
        Task {
            await body(sender, clock.now().addingTimeInterval(25))
            completion()
            sdk.endWork()
        }
    }
}
