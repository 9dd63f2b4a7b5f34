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
        let appAuto = appDefault == .auto && request.recipients.contains { !$0.autoBadge }
        func isAuto(_ recipient: SendRequest.Recipient) -> Bool { recipient.autoBadge || (appAuto && recipient.badge == nil) }
        let counted = request.recipients.filter { $0.autoBadge || appAuto }
        guard !counted.isEmpty else { return (request.recipients, Counted(appId: appId)) }
        var messages: [UnreadMessage] = []
        if let message = Self.countedMessage(request.event) {
            // A message its sender sent never counts for them (a copy to their other devices).
            messages = counted.filter { $0.uid != message.sender }.map {
                UnreadMessage(uid: $0.uid, conversationId: message.conversationId, messageId: message.messageId)
            }
        }
        let autoUids = request.recipients.filter(isAuto).map(\.uid)
        let (totals, added) = try service.store.addUnreadCounting(appId: appId, messages: messages, totalsOf: autoUids, now: service.now)
        let recipients = request.recipients.map { recipient in
            var recipient = recipient
            if isAuto(recipient) {
                recipient.badge = totals[recipient.uid] ?? 0
                recipient.autoBadge = true
            }
            return recipient
        }
        let message = Self.countedMessage(request.event)
        return (recipients, Counted(appId: appId, conversationId: message?.conversationId, messageId: message?.messageId, uids: added))
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
