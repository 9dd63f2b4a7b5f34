import PushCrypto
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
            (outcome, accepted) = try accept(request, app: app, call: call, body: body, idempotencyKey: idempotencyKey)
        } catch {
            badges.counted.takeBack(service)
            throw error
        }
        if case .accepted = outcome {} else { badges.counted.takeBack(service) }
        return try answer(outcome, appId: call.appId) { accepted }
    }

    /// Builds a send's jobs and stores them with its idempotency key; the outcome and the log
    /// line of an accepted send.
    private func accept(
        _ request: SendRequest, app: AppRecord?, call: Call, body: JSONObject, idempotencyKey: String
    ) throws -> (SendAcceptance, String) {
        let requestId = service.newId()
        let factory = JobFactory(
            service: service, requestId: requestId, ttlSeconds: request.ttlSeconds,
            privateMode: PrivateMode(app: app, ids: service.pushIds),
            deliveryPolicy: app?.deliveryPolicy ?? .standard, localization: app?.localization ?? .standard)
        var jobs: [PushJob] = []
        var perRecipient: [[String: Any]] = []
        let now = service.now
        // Who reads which conversation elsewhere (issue 31), when the app holds pushes for it.
        let hold = app?.holdWhileActiveSeconds ?? 0
        let activities =
            hold > 0 ? try service.store.activities(appId: call.appId, uids: request.recipients.map(\.uid), now: now) : [:]
        var held: [(uid: String, conversationId: String, jobIds: [String])] = []
        // Tokens a revocation deleted: recorded as skipped jobs (rule `revoked`) for the log and trace.
        let revoked = Dictionary(
            grouping: try service.store.revokedPushTokens(appId: call.appId, uids: request.recipients.map(\.uid)), by: \.uid)
        for recipient in request.recipients {
            let tokens = try service.store.tokens(appId: call.appId, uid: recipient.uid)
            // Notification preferences: read only for recipients with tokens (nothing to change otherwise).
            var treatment = PreferenceRules.Treatment.normal
            if !tokens.isEmpty {
                treatment = PreferenceRules.decide(
                    event: request.event, recipient: recipient.uid,
                    preferences: try service.store.preferences(appId: call.appId, uid: recipient.uid),
                    fallbackTimezone: PreferenceRules.registrationTimezone(tokens), now: now)
            }
            var recipientJobs = factory.jobs(
                for: request.event, uid: recipient.uid, badge: recipient.badge, tokens: tokens, treatment: treatment)
            if let activity = activities[recipient.uid],
                let waiting = ActivityHold.apply(
                    &recipientJobs, event: request.event, tokens: tokens, activities: activity, seconds: hold, now: now)
            {
                held.append((recipient.uid, waiting.conversationId, waiting.jobIds))
            }
            // A push APNs would refuse (too large) is refused here, naming the field, not stored.
            if let refusal = PayloadSize.check(recipientJobs, event: request.event, badge: recipient.badge) { throw refusal }
            jobs += recipientJobs
            jobs += factory.revokedJobs(
                for: request.event, uid: recipient.uid, badge: recipient.badge, revoked: revoked[recipient.uid] ?? [], registered: tokens)
            var entry: [String: Any] = ["uid": recipient.uid, "jobs": recipientJobs.filter { !$0.skipped }.count]
            if let rule = treatment.rule { entry["rule"] = rule }
            if recipient.autoBadge { entry["badge"] = recipient.badge ?? 0 }
            perRecipient.append(entry)
        }
        if case .call(let event) = request.event, event.callAction == "initiated" {
            try service.store.recordCall(
                CallRecord(
                    appId: call.appId, sessionId: event.sessionId, callerUid: event.sender.id, details: CallDeclinePush.details(of: event),
                    createdAt: service.now, recipients: request.recipients.map(\.uid)))
        }
        let response = JSON.encode(
            ["requestId": requestId, "jobs": jobs.filter { !$0.skipped }.count, "recipients": perRecipient] as [String: Any])
        let outcome = try service.store.acceptSend(
            appId: call.appId, idempotencyKey: Self.storedKey(idempotencyKey, requestId: requestId),
            requestHash: Self.requestHash(body), jobs: jobs, webhooks: [], response: response, now: service.now)
        // Held pushes are recorded once stored, for a read to cancel. A crash in between only
        // lets them go when their hold ends, as if nobody read.
        if case .accepted = outcome {
            for entry in held {
                try service.store.recordHeldPushes(
                    appId: call.appId, uid: entry.uid, conversationId: entry.conversationId, jobIds: entry.jobIds,
                    until: now.addingTimeInterval(Double(hold)), now: now)
            }
        }
        return (
            outcome,
            "send accepted app=\(call.appId) request=\(requestId) jobs=\(jobs.count { !$0.skipped }) skipped=\(jobs.count(where: \.skipped))"
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
    /// added) or refused as a reused key (422).
    func answer(_ outcome: SendAcceptance, appId: String, accepted: () -> String) throws -> Any {
        switch outcome {
        case .accepted(let stored):
            service.logger.info(accepted())
            return try JSONCodec.parse(stored)
        case .replayed(let stored):
            service.logger.info("send replayed app=\(appId) (idempotency key seen)")
            var value = (try JSONCodec.parse(stored) as? [String: Any]) ?? [:]
            value["replayed"] = true
            return value
        case .keyReused:
            throw APIError.idempotencyKeyReused
        }
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
