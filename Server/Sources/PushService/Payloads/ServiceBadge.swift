#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

/// The badge the service counts (issue 30, docs/design/service-badge.md): a recipient's badge
/// is `auto` when the send says `badge: "auto"` for them, or gives them no number and the app's
/// default is `auto`. Each new chat message (category `message`) counts unread for every
/// recipient the service counts for, except its sender, once per message id; an `auto`
/// recipient's push carries their total after the send, in `aps.badge` and `unreadMessageCount`.
/// A read takes away the conversation's messages, a deletion its message.
struct ServiceBadge {
    let service: ServiceContext
    let appId: String
    /// The app's badge default (`caller` when the app is gone), from the app record the send
    /// read once.
    let appDefault: AppBadge

    /// The message a chat send counts unread: a new message (not a reaction, an action, an
    /// edit or a deletion), with its conversation id.
    static func countedMessage(_ event: SendRequest.Event) -> (conversationId: String, messageId: String, sender: String)? {
        guard case .chat(let chat) = event, chat.category == .message, chat.action == nil else { return nil }
        let conversation = PayloadBuilder.conversationId(
            sender: chat.sender.id, receiver: chat.receiver.id, receiverType: chat.receiverType)
        return (conversation, chat.id, chat.sender.id)
    }

    /// The send's recipients with their badges: a number the send gave is kept; an `auto`
    /// recipient gets their total after this send (which counts the message for every recipient
    /// counted for: `auto` ones, and with the app default `auto` also those given a number).
    /// Stores nothing when no recipient is counted for. The recipients returned say
    /// ``SendRequest/Recipient/autoBadge`` for every one whose badge is the service's; the
    /// ``Counted`` says what this send added, for ``Counted/takeBack(_:)`` when the send is not
    /// accepted after all.
    func resolve(_ request: SendRequest) throws -> (recipients: [SendRequest.Recipient], counted: Counted) {
        let plan = plan(request.event, recipients: request.recipients)
        guard plan.counts else { return (request.recipients, Counted(appId: appId)) }
        let (totals, added) = try service.store.addUnreadCounting(
            appId: appId, messages: plan.messages, totalsOf: plan.totalsOf, now: service.now)
        let message = Self.countedMessage(request.event)
        return (
            plan.apply(totals), Counted(appId: appId, conversationId: message?.conversationId, messageId: message?.messageId, uids: added)
        )
    }

    /// What counting the badges of `recipients` takes: the messages to count and whose totals to
    /// read. ``resolve(_:)`` counts in a transaction of its own; a group send's batch counts in
    /// the transaction that stores its jobs (``GroupSendStore/commitGroupSendBatch(_:lease:now:build:)``).
    func plan(_ event: SendRequest.Event, recipients: [SendRequest.Recipient]) -> Plan {
        let appAuto = appDefault == .auto && recipients.contains { !$0.autoBadge }
        let counted = recipients.filter { $0.autoBadge || appAuto }
        guard !counted.isEmpty else { return Plan(recipients: recipients, appAuto: false, counts: false) }
        var messages: [UnreadMessage] = []
        if let message = Self.countedMessage(event) {
            // A message its sender sent never counts for them (a copy to their other devices).
            messages = counted.filter { $0.uid != message.sender }.map {
                UnreadMessage(uid: $0.uid, conversationId: message.conversationId, messageId: message.messageId)
            }
        }
        var plan = Plan(recipients: recipients, appAuto: appAuto, counts: true)
        plan.messages = messages
        plan.totalsOf = recipients.filter(plan.isAuto).map(\.uid)
        return plan
    }

    /// How a send's badges are counted (``plan(_:recipients:)``).
    struct Plan {
        /// The recipients, as the send gave them.
        let recipients: [SendRequest.Recipient]
        /// Whether the app's default (`auto`) makes the service's count every recipient's badge
        /// that the send gave no number.
        let appAuto: Bool
        /// Whether anything is counted or read (false: the recipients keep what the send gave).
        let counts: Bool
        /// The messages to count unread.
        var messages: [UnreadMessage] = []
        /// The recipients whose totals their pushes carry.
        var totalsOf: [String] = []

        /// Whether a recipient's badge is the service's.
        func isAuto(_ recipient: SendRequest.Recipient) -> Bool { recipient.autoBadge || (appAuto && recipient.badge == nil) }

        /// The recipients with the totals read (an `auto` recipient's badge is their total).
        func apply(_ totals: [String: Int]) -> [SendRequest.Recipient] {
            guard counts else { return recipients }
            return recipients.map { recipient in
                var recipient = recipient
                if isAuto(recipient) {
                    recipient.badge = totals[recipient.uid] ?? 0
                    recipient.autoBadge = true
                }
                return recipient
            }
        }
    }

    /// What one send counted: the recipients for whom it added its message.
    struct Counted {
        let appId: String
        var conversationId: String? = nil
        var messageId: String? = nil
        var uids: [String] = []

        /// Takes the message back out of the counts it was added to: the send was refused after
        /// it counted (a payload too large, an idempotency key reused with another body, a store
        /// failure) or replayed (an earlier send with its key counted it already; a read since
        /// then had taken it away). Nothing is sent for it, so it must not stay counted. A
        /// failure here is logged: the count is one too high until the conversation is read.
        func takeBack(_ service: ServiceContext) {
            guard let conversationId, let messageId, !uids.isEmpty else { return }
            do {
                try service.store.forgetUnreadMessage(appId: appId, conversationId: conversationId, messageId: messageId, uids: uids)
            } catch {
                service.logger.error("badge: a refused send's message could not be uncounted app=\(appId) error=\(error)")
            }
        }
    }
}
