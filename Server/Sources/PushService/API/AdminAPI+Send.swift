import PushCrypto
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPServer
import PushCore
import PushStore

/// The send API: an event for recipients becomes one job per token, stored with the
/// request's idempotency key before the answer goes out.
extension AdminAPI {
    var sendRoutes: [Route] {
        [
            Route("POST", "notifications/push/v1/send", .adminApp) { try send($0) },
            Route("GET", "notifications/push/v1/send/:requestId/jobs", .adminApp) { call in
                try service.store.pushJobs(requestId: call.parameter("requestId")).filter { $0.appId == call.appId }.map(Self.jobJSON)
            },
            Route("GET", "notifications/push/v1/send/:requestId/trace", .adminApp) { call in
                try PushTrace(service: service).trace(appId: call.appId, requestId: call.parameter("requestId"))
            },
            Route("POST", "users/:uid/read", .adminApp) { call in
                let uid = call.parameter("uid")
                try Validate.identifier(uid, field: "uid")
                guard try service.store.user(appId: call.appId, uid: uid) != nil else {
                    throw APIError.userNotFound
                }
                return try ReadSync(service: service).handle(call, appId: call.appId, uid: uid, excludingAuthTokenHash: nil)
            },
        ]
    }

    /// The request hash is over the canonical JSON (sorted keys), so a retry that orders its
    /// keys differently is still the same request.
    func send(_ call: Call) throws -> Any {
        let idempotencyKey = call.request.header("idempotency-key") ?? ""
        guard idempotencyKey.isEmpty || (idempotencyKey.count <= 200 && !idempotencyKey.unicodeScalars.contains { $0.value < 0x20 }) else {
            throw APIError.badRequest("The Idempotency-Key header must be at most 200 printable characters.", field: "Idempotency-Key")
        }
        let body = try call.body()
        var request = try SendRequest.parse(body, now: service.now)
        // A group (issue 31): its members are the recipients; a group larger than a send may
        // name is answered at once and expanded in the background (AdminAPI+GroupSend.swift).
        var group: [String: Any]?
        if let target = request.group {
            let sender = request.senderUid
            guard
                let first = try service.store.groupMembers(
                    appId: call.appId, guid: target.guid, after: nil, limit: SendRequest.maxRecipients + 2)
            else { throw APIError.groupNotFound(target.guid) }
            let members = first.uids.filter { $0 != sender }
            guard first.next == nil, members.count <= SendRequest.maxRecipients else {
                return try sendToLargeGroup(call, request: request, group: target, body: body, idempotencyKey: idempotencyKey)
            }
            request.recipients = members.map(target.recipient)
            group = ["guid": target.guid, "members": members.count]
        }
        if case .chat(let chat) = request.event, let action = chat.action {
            return try sendMessageAction(call, action, of: chat, request: request, body: body, idempotencyKey: idempotencyKey)
        }
        // The app's badge default, privacy mode and delivery policy, read once for the whole send.
        let app = try service.store.app(id: call.appId)
        // The badge the service counts (issue 30): `auto` recipients get their total after this
        // send. A send that is then refused or replayed takes its count back.
        let badges = try ServiceBadge(service: service, appId: call.appId, appDefault: app?.badge ?? .caller).resolve(request)
        request.recipients = badges.recipients
        let outcome: SendAcceptance
        let accepted: String
        do {
            (outcome, accepted) = try accept(request, app: app, group: group, call: call, body: body, idempotencyKey: idempotencyKey)
        } catch {
            badges.counted.takeBack(service)
            throw error
        }
        if case .accepted = outcome {} else { badges.counted.takeBack(service) }
        return try answer(outcome, appId: call.appId) { accepted }
    }

    /// Builds a send's jobs and stores them with its idempotency key; the outcome and the log
    /// line of an accepted send. `group`: the group the recipients are the members of, in the
    /// answer (`{guid, members}`).
    private func accept(
        _ request: SendRequest, app: AppRecord?, group: [String: Any]?, call: Call, body: JSONObject, idempotencyKey: String
    ) throws -> (SendAcceptance, String) {
        let requestId = service.newId()
        let factory = JobFactory(
            service: service, requestId: requestId, ttlSeconds: request.ttlSeconds,
            privateMode: PrivateMode(app: app, ids: service.pushIds),
            deliveryPolicy: app?.deliveryPolicy ?? .standard, localization: app?.localization ?? .standard)
        let now = service.now
        let facts = try RecipientFacts.read(
            service.store, appId: call.appId, uids: request.recipients.map(\.uid), holdSeconds: app?.holdWhileActiveSeconds ?? 0, now: now)
        // A large send's jobs are made recipient by recipient while the store writes them
        // (issue 32: they are never in memory whole); a small one's before the store's
        // transaction, which then holds the store (on SQLite its one connection, that claims and
        // finishes wait for) no longer than its insert. A push APNs would refuse (too large)
        // refuses the send either way, naming the field: none of its jobs is stored. An
        // initiated call's record is written in the same transaction, before its jobs (a decline
        // may come as soon as they are stored): a refused or replayed send writes none.
        let batches = RecipientJobBatches(
            factory: factory, event: request.event, recipients: request.recipients, facts: facts, now: now, checkingSize: true)
        let jobs =
            facts.tokenCount <= service.configuration.sendJobsMadeBeforeTheStore
            ? SendJobs(try batches.rest()) : SendJobs { try batches.next() }
        var ringing: CallRecord?
        if case .call(let event) = request.event, event.callAction == "initiated" {
            ringing = CallRecord(
                appId: call.appId, sessionId: event.sessionId, callerUid: event.sender.id, details: CallDeclinePush.details(of: event),
                createdAt: service.now, recipients: request.recipients.map(\.uid))
        }
        let outcome = try service.store.acceptSend(
            appId: call.appId, idempotencyKey: Self.storedKey(idempotencyKey, requestId: requestId),
            requestHash: Self.requestHash(body), jobs: jobs, webhooks: [], call: ringing,
            response: {
                var answer: [String: Any] = ["requestId": requestId, "jobs": batches.toSend, "recipients": batches.entries]
                if let group { answer["group"] = group }
                return JSON.encode(answer)
            }, now: service.now)
        if case .accepted = outcome {
            try ActivityHold.record(batches.held, store: service.store, appId: call.appId, seconds: facts.holdSeconds, now: now)
        }
        return (
            outcome,
            "send accepted app=\(call.appId) request=\(requestId) jobs=\(batches.toSend) skipped=\(batches.skipped)"
        )
    }

    /// The key a send's idempotency record is stored under: the header's, or one of its own.
    static func storedKey(_ idempotencyKey: String, requestId: String) -> String {
        idempotencyKey.isEmpty ? "auto-" + requestId : "key-" + idempotencyKey
    }

    /// The hash a send's idempotency record keeps: over the canonical JSON (sorted keys).
    static func requestHash(_ body: JSONObject) -> Data {
        Crypto.sha256(JSON.encode(body.values))
    }

    /// The answer to a send the store accepted (logging `accepted`), replayed (`replayed: true`
    /// added) or refused as a reused key (422). A group send expanded in the background (its
    /// answer has `state`) is answered 202, accepted or replayed.
    func answer(_ outcome: SendAcceptance, appId: String, accepted: () -> String) throws -> Any {
        switch outcome {
        case .accepted(let stored):
            service.logger.info(accepted())
            return Self.withStatus(try JSONCodec.parse(stored))
        case .replayed(let stored):
            service.logger.info("send replayed app=\(appId) (idempotency key seen)")
            var value = (try JSONCodec.parse(stored) as? [String: Any]) ?? [:]
            value["replayed"] = true
            return Self.withStatus(value)
        case .keyReused:
            throw APIError.idempotencyKeyReused
        }
    }

    /// A send's answer as the handler returns it: the `data` of a 200, or for a group send
    /// expanded in the background (its answer has `state`) a whole 202 answer.
    static func withStatus(_ answer: Any) -> Any {
        guard let object = answer as? [String: Any], object["state"] != nil else { return answer }
        return HTTPResponse.json(202, JSON.encode(["data": object]))
    }

    static func jobJSON(_ job: PushJob) -> [String: Any] {
        var headers: [String: Any] = [
            "pushType": job.headers.pushType.rawValue, "priority": job.headers.priority, "expiration": job.headers.expiration,
            "topicSuffix": job.headers.topicSuffix,
        ]
        headers["collapseId"] = job.headers.collapseId ?? JSONNull()
        var json: [String: Any] = [
            "id": job.id, "uid": job.uid, "token": job.token, "platform": job.platform.rawValue, "kind": job.kind.rawValue,
            "providerId": job.providerId, "attempts": job.attempts, "headers": headers, "rule": job.rule ?? JSONNull(),
            "skipped": job.skipped,
            "payload": (try? JSONCodec.parse(job.payload)) ?? [:],
        ]
        // A private push: its payload is the clear part; what the fitter removed to seal it.
        if let privatePush = job.privatePush { json["trimmed"] = privatePush.trimmed }
        return json
    }
}
