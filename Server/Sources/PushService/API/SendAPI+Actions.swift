#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// The send API's edits and deletions (`message.action`, Contract/WIRE-CONTRACT.md §3): stored
/// with their idempotency record like any send, in one transaction with what they do to the
/// message's jobs (``MessageActions``).
extension AdminAPI {
    /// Answers a chat send with `message.action`: `{requestId, jobs, recipients:[{uid, jobs,
    /// reason?}]}`, `reason: message-unknown` for a recipient the message was never pushed to.
    func sendMessageAction(
        _ call: Call, _ action: ChatEvent.Action, of chat: ChatEvent, request: SendRequest, body: JSONObject, idempotencyKey: String
    ) throws -> Any {
        let requestId = service.newId()
        var tokens: [String: [PushTokenRecord]] = [:]
        for recipient in request.recipients {
            tokens[recipient.uid] = try service.store.tokens(appId: call.appId, uid: recipient.uid)
        }
        // A deletion takes the message away from the counts of the badge (issue 30); again on a retry: nothing.
        if action == .deleted {
            let conversation = PayloadBuilder.conversationId(
                sender: chat.sender.id, receiver: chat.receiver.id, receiverType: chat.receiverType)
            _ = try service.store.removeUnreadMessage(
                appId: call.appId, conversationId: conversation, messageId: chat.id, uids: request.recipients.map(\.uid),
                now: service.now)
        }
        let app = try service.store.app(id: call.appId)
        let privateMode = PrivateMode(app: app, ids: service.pushIds)
        let actions = MessageActions(
            service: service, appId: call.appId, requestId: requestId, privateMode: privateMode,
            localization: app?.localization ?? .standard)
        // A private app's jobs carry collapse ids keyed per recipient: the message's jobs are
        // found by each recipient's id.
        let collapseIds =
            privateMode.map { mode in
                request.recipients.map { CollapseId.chat(id: chat.id, category: chat.category, keyed: mode.recipient($0.uid)) }
            } ?? [CollapseId.chat(id: chat.id, category: chat.category)]
        var planned: MessageActionPlan?
        let outcome = try service.store.acceptMessageAction(
            appId: call.appId, idempotencyKey: Self.storedKey(idempotencyKey, requestId: requestId),
            requestHash: Self.requestHash(body), collapseIds: collapseIds, now: service.now
        ) { found in
            let plan = try actions.plan(action, of: chat, recipients: request.recipients, tokens: tokens, found: found)
            planned = plan
            return plan
        }
        return try answer(outcome, appId: call.appId) {
            let plan = planned
            return "message \(action.rawValue) app=\(call.appId) request=\(requestId) jobs=\(plan?.jobs.count ?? 0) "
                + "skipped=\(plan?.skip.count ?? 0) rewritten=\(plan?.rewrite.count ?? 0) recipients=\(plan?.changes.count ?? 0)"
        }
    }
}
