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

    /// The app's badge default (`caller` when the app is gone).
    func appDefault() throws -> AppBadge {
        try service.store.app(id: appId)?.badge ?? .caller
    }

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
    /// ``SendRequest/Recipient/autoBadge`` for every one whose badge is the service's.
    func resolve(_ request: SendRequest) throws -> [SendRequest.Recipient] {
        let appAuto = try request.recipients.contains { !$0.autoBadge } && appDefault() == .auto
        func isAuto(_ recipient: SendRequest.Recipient) -> Bool { recipient.autoBadge || (appAuto && recipient.badge == nil) }
        let counted = request.recipients.filter { $0.autoBadge || appAuto }
        guard !counted.isEmpty else { return request.recipients }
        var messages: [UnreadMessage] = []
        if let message = Self.countedMessage(request.event) {
            // A message its sender sent never counts for them (a copy to their other devices).
            messages = counted.filter { $0.uid != message.sender }.map {
                UnreadMessage(uid: $0.uid, conversationId: message.conversationId, messageId: message.messageId)
            }
        }
        let autoUids = request.recipients.filter(isAuto).map(\.uid)
        let totals = try service.store.addUnread(appId: appId, messages: messages, totalsOf: autoUids, now: service.now)
        return request.recipients.map { recipient in
            var recipient = recipient
            if isAuto(recipient) {
                recipient.badge = totals[recipient.uid] ?? 0
                recipient.autoBadge = true
            }
            return recipient
        }
    }
}
