#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// Receipts, quick replies, campaign receipts and call status: each becomes a webhook
/// event in the durable outbox (and a call decline also a push to the caller).
extension ClientAPI {
    func delivered(_ call: Call, receiverType: String, id: String) throws -> Any {
        guard let session = call.session else { throw APIError.authTokenNotFound }
        try Validate.identifier(id, field: receiverType == "user" ? "uid" : "guid")
        let body = try call.body()
        let messageId = try body.identifier("messageId")
        let deliveredBy = try body.optionalString("deliveredBy", maxLength: 16)
        if let deliveredBy, !["extension", "app"].contains(deliveredBy) {
            throw APIError.badRequest("The deliveredBy field must be extension or app.", field: "deliveredBy", problem: deliveredBy)
        }
        if let pushId = try optionalPushId(body) {
            try PushTrace(service: service).record(.delivered, pushId: pushId, session: session, detail: deliveredBy)
        }
        let deliveredAt = Int64(service.now.timeIntervalSince1970 * 1000)
        try emit(
            "message.delivered", session: session,
            data: ["messageId": messageId, "receiverType": receiverType, "conversationWith": id, "deliveredAt": deliveredAt])
        return ["messageId": messageId, "deliveredAt": deliveredAt]
    }

    func quickReply(_ call: Call, parentId: String?) throws -> Any {
        guard let session = call.session else { throw APIError.authTokenNotFound }
        if let parentId { try Validate.identifier(parentId, field: "parentId") }
        let body = try call.body()
        let receiver = try body.string("receiver", maxLength: 128)
        try Validate.identifier(receiver, field: "receiver")
        let receiverType = try body.string("receiverType", maxLength: 16)
        guard ["user", "group"].contains(receiverType) else {
            throw APIError.badRequest("The receiverType field must be user or group.", field: "receiverType", problem: receiverType)
        }
        let category = try body.optionalString("category", maxLength: 32) ?? "message"
        guard category == "message" else {
            throw APIError.badRequest("Only category message is accepted.", field: "category", problem: category)
        }
        let type = try body.optionalString("type", maxLength: 32) ?? "text"
        guard type == "text" else { throw APIError.badRequest("Only type text is accepted.", field: "type", problem: type) }
        let text = try body.object("data").string("text", maxLength: 10_000)
        let pushId = try optionalPushId(body)
        let sentAt = Int64(service.now.timeIntervalSince1970)
        var message: [String: Any] = [
            "id": service.newId(), "sender": session.uid, "receiver": receiver, "receiverType": receiverType,
            "category": category, "type": type, "data": ["text": text], "sentAt": sentAt,
        ]
        if let parentId { message["parentId"] = parentId }
        try emit("message.quickReply", session: session, data: message)
        if let pushId, let id = message["id"] as? String {
            try PushTrace(service: service).record(.replied, pushId: pushId, session: session, detail: id)
        }
        return message
    }

    /// `POST /notifications/push/v1/pushes/{pushId}/opened`: the user opened the push
    /// (idempotent: a repeat answers the first time).
    func opened(_ call: Call) throws -> Any {
        guard let session = call.session else { throw APIError.authTokenNotFound }
        let pushId = call.parameter("pushId")
        try Validate.identifier(pushId, field: "pushId")
        guard let event = try PushTrace(service: service).record(.opened, pushId: pushId, session: session, detail: nil) else {
            throw APIError.pushNotFound(pushId)
        }
        return ["pushId": pushId, "openedAt": Int64(event.at.timeIntervalSince1970 * 1000)]
    }

    /// The optional `pushId` of a receipt or quick reply.
    private func optionalPushId(_ body: JSONObject) throws -> String? {
        guard let pushId = try body.optionalString("pushId", maxLength: 128) else { return nil }
        try Validate.identifier(pushId, field: "pushId")
        return pushId
    }

    func campaign(_ call: Call, action: String) throws -> Any {
        guard let session = call.session else { throw APIError.authTokenNotFound }
        let id = call.parameter("id")
        try Validate.identifier(id, field: "id")
        let at = Int64(service.now.timeIntervalSince1970 * 1000)
        // Idempotent: the first call per user, campaign push and action emits the event.
        try emit(
            "campaign.\(action)", session: session, data: ["id": id, "action": action, "at": at],
            onceKey: "campaign:\(session.uid):\(id):\(action)")
        return ["id": id, "status": action]
    }

    func callStatus(_ call: Call) throws -> Any {
        guard let session = call.session else { throw APIError.authTokenNotFound }
        let sessionId = call.parameter("sessionId")
        try Validate.identifier(sessionId, field: "sessionId")
        let status = try call.body().string("status", maxLength: 32)
        guard ["rejected", "busy", "unanswered"].contains(status) else {
            throw APIError.badRequest("The status field must be rejected, busy or unanswered.", field: "status", problem: status)
        }
        // Only a recipient of a call this service pushed answers it, once: a repeat changes
        // nothing, anyone else (or a call nobody pushed) is refused before any push.
        let record: CallRecord
        switch try service.store.recordCallAnswer(appId: session.appId, sessionId: sessionId, uid: session.uid) {
        case .first(let call):
            record = call
        case .repeated:
            service.logger.info("call status app=\(session.appId) session=\(sessionId) status=\(status) repeated: nothing sent")
            return ["sessionId": sessionId, "status": status]
        case .notRecipient:
            throw APIError.notCallRecipient
        }
        let at = Int64(service.now.timeIntervalSince1970 * 1000)
        var pushJobs: [PushJob] = []
        if status != "unanswered" {
            pushJobs = try CallDeclinePush(service: service).jobs(for: record, status: status, decliner: session.uid)
        }
        let webhook = try webhookJob(
            "call.\(status)", session: session, data: ["sessionId": sessionId, "status": status, "at": at])
        try service.store.enqueue(webhooks: [webhook], pushJobs: pushJobs)
        service.logger.info("call status app=\(session.appId) session=\(sessionId) status=\(status) pushes=\(pushJobs.count)")
        return ["sessionId": sessionId, "status": status]
    }

    private func emit(_ event: String, session: Session, data: [String: Any], onceKey: String? = nil) throws {
        let job = try webhookJob(event, session: session, data: data)
        if let onceKey {
            _ = try service.store.acceptSend(
                appId: session.appId, idempotencyKey: onceKey, requestHash: Data(), jobs: [], webhooks: [job], response: Data(),
                now: service.now)
        } else {
            try service.store.enqueue(webhooks: [job], pushJobs: [])
        }
        service.logger.info("event \(event) app=\(session.appId) uid=\(session.uid) queued")
    }

    private func webhookJob(_ event: String, session: Session, data: [String: Any]) throws -> WebhookJob {
        let id = service.newId()
        let now = service.now
        let body: [String: Any] = [
            "id": id, "event": event, "appId": session.appId, "uid": session.uid,
            "occurredAt": Int64(now.timeIntervalSince1970 * 1000), "data": data,
        ]
        return WebhookJob(id: id, appId: session.appId, event: event, body: JSON.encode(body), notBefore: now, createdAt: now)
    }
}

/// Validation of path parameters and ids.
enum Validate {
    /// Ids: 1...128 characters, printable ASCII, no slash or space.
    static func identifier(_ value: String, field: String, maxLength: Int = 128) throws(APIError) {
        guard !value.isEmpty, value.count <= maxLength,
            value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f && $0 != "/" })
        else {
            throw .badRequest("The \(field) is not a valid id.", field: field, problem: "invalid id")
        }
    }
}
