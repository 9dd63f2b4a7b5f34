#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore
import ServerSupport

extension ChatEvent {
    /// `message.action` of a chat send (Contract/WIRE-CONTRACT.md §3): the message `id` sent
    /// before was edited (with its new `text`) or deleted.
    enum Action: String {
        case edited, deleted

        /// The rule recorded on the pending jobs a deletion skipped.
        static let deletedRule = "deleted"

        /// `message.action`: absent (or null) for a new message, else `edited` or `deleted`.
        static func parse(_ object: JSONObject) throws(APIError) -> Action? {
            guard let text = try object.optionalString("action", maxLength: 16) else { return nil }
            guard let action = Action(rawValue: text) else {
                throw .badRequest("The message.action field must be edited or deleted.", field: "message.action", problem: text)
            }
            return action
        }

        /// `message.text`: required for a new message and for an edit (its new text), optional
        /// (and unused) for a deletion.
        static func text(of object: JSONObject, action: Action?) throws(APIError) -> String {
            switch action {
            case .deleted:
                return try object.optionalString("text", maxLength: 4_000) ?? ""
            case .edited:
                guard object["text"] != nil else {
                    throw .badRequest(
                        "An edit (message.action edited) needs the message's new text in message.text.", field: "message.text",
                        problem: "missing")
                }
                return try object.string("text", maxLength: 4_000)
            case nil:
                return try object.string("text", maxLength: 4_000)
            }
        }
    }
}

/// Edits and deletions of a message (`message.action`): what they do to the message's jobs, and
/// the background pushes they send (Contract/WIRE-CONTRACT.md §3, §4).
///
/// They go only to the devices that got the message, known from its jobs (those with the
/// message's collapse id, not skipped) and still registered to the recipient. Per device, by
/// the state of its job: a job still pending is skipped (deletion, rule `deleted`) or has its
/// alert rewritten (edit), and nothing more goes to the device; a job being sent or finished
/// gets a background push (`content-available`, priority 5, expiration now + 1 day, never VoIP)
/// that the SDK applies in the app. Each recipient whose message had jobs gets the change in
/// their changes feed; one without is answered `reason: message-unknown`.
struct MessageActions {
    let service: ServiceContext
    let appId: String
    let requestId: String
    /// Set for a private app (`ServiceContext.privateMode(appId:)`): ids keyed per recipient,
    /// payloads sealed (issue 28).
    var privateMode: PrivateMode? = nil
    /// The app's texts per language: an edit's text is written in each device's language
    /// (``PushTemplates``), as its message was.
    var localization: AppLocalization = .standard

    /// The `reason` of a recipient the message was never pushed to (or whose jobs were purged).
    static let unknownReason = "message-unknown"

    /// What `action` of `event` does, given the message's jobs (`found`, of every recipient)
    /// and each recipient's registered tokens. Throws 400 when a rewritten or new push would be
    /// over APNs' payload limit (nothing is then stored).
    func plan(
        _ action: ChatEvent.Action, of event: ChatEvent, recipients: [SendRequest.Recipient], tokens: [String: [PushTokenRecord]],
        found: [MessageJob]
    ) throws -> MessageActionPlan {
        let now = service.now
        let conversation = PayloadBuilder.conversationId(
            sender: event.sender.id, receiver: event.receiver.id, receiverType: event.receiverType)
        // An edit's title and body, and its background push, per language: written once for
        // each language the devices read, not once per device.
        var rendered: [[String]: (title: String, body: String)] = [:]
        func alert(_ languages: [String]) -> (title: String, body: String) {
            if let known = rendered[languages] { return known }
            let alert = PayloadBuilder.alert(of: event, renderer: PushTemplates.Renderer(preferred: languages, localization: localization))
            rendered[languages] = alert
            return alert
        }
        // The message's jobs in this conversation (a job of another conversation with the same
        // message id is not this message), with their payloads parsed.
        var byRecipient: [String: [(job: MessageJob, payload: [String: Any])]] = [:]
        for item in found {
            guard let payload = try? JSONCodec.parse(item.job.privatePush?.plaintext ?? item.job.payload) as? [String: Any],
                payload["conversationId"] as? String == conversation
            else { continue }
            byRecipient[item.job.uid, default: []].append((item, payload))
        }
        let standardId = CollapseId.chat(id: event.id, category: event.category)
        var standardEncoded: [[String]: Data] = [:]
        func encoded(_ languages: [String]) -> Data {
            if let known = standardEncoded[languages] { return known }
            let text = alert(languages)
            let data = JSON.encode(
                Self.payload(
                    action, of: event, conversationId: conversation, notificationId: standardId, title: text.title, body: text.body))
            standardEncoded[languages] = data
            return data
        }
        func headers(_ keyed: RecipientIds?) -> PushHeaders {
            PushHeaders(
                pushType: .background, priority: 5, expiration: Int64(now.timeIntervalSince1970) + ReadSync.ttlSeconds,
                collapseId: CollapseId.of(action == .edited ? .edit : .deletion, id: event.id, keyed: keyed), topicSuffix: "")
        }
        var skip: [String] = []
        var rewrite: [String: Data] = [:]
        var jobs: [PushJob] = []
        var changes: [PushChange] = []
        var entries: [[String: Any]] = []
        for recipient in recipients {
            let messageJobs = byRecipient[recipient.uid] ?? []
            guard !messageJobs.isEmpty else {
                entries.append(["uid": recipient.uid, "jobs": 0, "reason": Self.unknownReason])
                continue
            }
            let keyed = privateMode?.recipient(recipient.uid)
            let recipientTokens = tokens[recipient.uid] ?? []
            let languages = Dictionary(recipientTokens.map { ($0.token, $0.languages) }, uniquingKeysWith: { first, _ in first })
            let notificationId = keyed.map { CollapseId.chat(id: event.id, category: event.category, keyed: $0) } ?? standardId
            var reached = Set<String>()
            for (item, payload) in messageJobs {
                // A private job's text is in its sealed plaintext, which a rewrite of the payload
                // cannot reach: a pending one is treated as sent, and the edit follows it.
                guard item.pending, !(action == .edited && item.job.privatePush != nil) else {
                    reached.insert(item.job.token)
                    continue
                }
                switch action {
                case .deleted:
                    skip.append(item.job.id)
                case .edited:
                    var rewritten = item.job
                    let text = alert(languages[item.job.token] ?? [])
                    rewritten.payload = JSON.encode(Self.rewritten(payload, title: text.title, body: text.body))
                    if let refusal = PayloadSize.check([rewritten], event: .chat(event), badge: nil) { throw refusal }
                    rewrite[item.job.id] = rewritten.payload
                }
            }
            let targets = recipientTokens.filter { $0.platform != .apnsVoIP && reached.contains($0.token) }
            // A private recipient's pushes, sealed per language of their devices.
            var sealedByLanguages: [[String]: (clear: Data, plaintext: Data, trimmed: [String])] = [:]
            func sealedParts(_ languages: [String]) -> (clear: Data, plaintext: Data, trimmed: [String])? {
                guard keyed != nil else { return nil }
                if let known = sealedByLanguages[languages] { return known }
                let text = alert(languages)
                let payload = Self.payload(
                    action, of: event, conversationId: conversation, notificationId: notificationId, title: text.title, body: text.body)
                let parts = PrivatePayload.build(payload, shape: .background, voip: false)
                sealedByLanguages[languages] = (parts.clear, parts.plaintext, parts.trimmed)
                return sealedByLanguages[languages]
            }
            let recipientHeaders = headers(keyed)
            let recipientJobs = targets.map { token in
                let id = service.newId()
                let sealed = sealedParts(token.languages)
                let encoded = sealed?.clear ?? encoded(token.languages)
                var job = PushJob(
                    id: id, appId: token.appId, requestId: requestId, uid: recipient.uid, token: token.token, platform: token.platform,
                    kind: .chat, providerId: token.providerId, payload: PayloadBuilder.stamp(encoded, pushId: id),
                    headers: recipientHeaders, notBefore: now, createdAt: now, environment: token.environment)
                if let sealed {
                    job.privatePush = PrivatePush(plaintext: PayloadBuilder.stamp(sealed.plaintext, pushId: id), trimmed: sealed.trimmed)
                }
                return job
            }
            if let refusal = PayloadSize.check(recipientJobs, event: .chat(event), badge: nil) { throw refusal }
            jobs += recipientJobs
            entries.append(["uid": recipient.uid, "jobs": recipientJobs.count])
            // The changes feed is the user's, not a device's: in their first device's language.
            let (title, body) = alert(targets.first?.languages ?? recipientTokens.first?.languages ?? [])
            changes.append(
                PushChange(
                    appId: appId, uid: recipient.uid,
                    kind: action == .edited ? .edited : .deleted, conversationId: conversation, messageId: event.id,
                    notificationId: notificationId, title: action == .edited ? title : nil, body: action == .edited ? body : nil,
                    at: Date(timeIntervalSince1970: Double(event.sentAt) / 1000), createdAt: now))
        }
        let response = JSON.encode(["requestId": requestId, "jobs": jobs.count, "recipients": entries] as [String: Any])
        return MessageActionPlan(
            skip: skip, skipRule: ChatEvent.Action.deletedRule, rewrite: rewrite, jobs: jobs, changes: changes, response: response)
    }

    /// The background push of an edit or a deletion (`Contract/payloads/chat-edited.json`,
    /// `chat-deleted.json`; `pushId` is stamped per job).
    /// `title` and `body` are the edit's, in the device's language.
    static func payload(
        _ action: ChatEvent.Action, of event: ChatEvent, conversationId: String, notificationId: String, title: String, body: String
    ) -> [String: Any] {
        var payload: [String: Any] = [
            "type": "chat", "action": action.rawValue, "tag": event.id, "conversationId": conversationId,
            "notificationId": notificationId, "aps": ["content-available": 1],
        ]
        if action == .edited {
            payload["title"] = title
            payload["body"] = body
            payload["editedAt"] = String(event.sentAt)
        }
        return payload
    }

    /// A pending message push with the edit's title and body (top level and `aps.alert`), and
    /// without the embedded `message` (it would show the old text).
    static func rewritten(_ payload: [String: Any], title: String, body: String) -> [String: Any] {
        var payload = payload
        payload["title"] = title
        payload["body"] = body
        payload["message"] = nil
        var aps = payload["aps"] as? [String: Any] ?? [:]
        aps["alert"] = ["title": title, "body": body]
        payload["aps"] = aps
        return payload
    }
}
