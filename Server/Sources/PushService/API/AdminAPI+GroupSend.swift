#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// A send to a group larger than a send may name (issue 31, docs/design/group-sends.md): the
/// group's members are taken and the send recorded, with its idempotency key, in one
/// transaction, and it is answered 202 at once; ``GroupSendWorker`` makes the jobs in the
/// background, a batch at a time.
extension AdminAPI {
    /// Answers `{requestId, jobs: 0, group: {guid, members}, state: "expanding"}` with 202 (the
    /// first answer again, `replayed: true`, for a key seen before). Refused: an edit or deletion
    /// and a call (they go to at most ``SendRequest/maxRecipients`` members), and a push APNs
    /// would refuse as a member's device would get it.
    func sendToLargeGroup(
        _ call: Call, request: SendRequest, group: SendRequest.GroupTarget, body: JSONObject, idempotencyKey: String
    ) throws -> Any {
        switch request.event {
        case .chat(let chat) where chat.action != nil:
            throw APIError.badRequest(
                "An edit or a deletion goes to at most \(SendRequest.maxRecipients) members of a group: name the recipients "
                    + "(in sends of \(SendRequest.maxRecipients)).", field: "recipients.group",
                problem: "more than \(SendRequest.maxRecipients) members")
        case .call:
            throw APIError.badRequest(
                "A call rings at most \(SendRequest.maxRecipients) members of a group.", field: "recipients.group",
                problem: "more than \(SendRequest.maxRecipients) members")
        case .chat, .campaign: break
        }
        let app = try service.store.app(id: call.appId)
        try checkMemberPayload(request, group: group, app: app, appId: call.appId)
        let requestId = service.newId()
        let now = service.now
        let record = GroupSend(id: requestId, appId: call.appId, guid: group.guid, request: JSON.encode(body.values), createdAt: now)
        let outcome: SendAcceptance
        do {
            outcome = try service.store.acceptGroupSend(
                record, sender: request.senderUid, idempotencyKey: Self.storedKey(idempotencyKey, requestId: requestId),
                requestHash: Self.requestHash(body), now: now
            ) { members in
                JSON.encode(
                    [
                        "requestId": requestId, "jobs": 0, "group": ["guid": group.guid, "members": members] as [String: Any],
                        "state": (members == 0 ? GroupSend.State.done : .expanding).rawValue,
                    ] as [String: Any])
            }
        } catch StoreError.notFound {
            // Deleted since its members were counted.
            throw APIError.groupNotFound(group.guid)
        }
        if case .accepted = outcome { service.wakeGroupSends() }
        return try answer(outcome, appId: call.appId) {
            "group send accepted app=\(call.appId) request=\(requestId) group=\(group.guid) (its jobs are made in the background)"
        }
    }

    /// The door of a group send made in the background, which can no longer refuse a member's
    /// push: the push as a member's APNs device and FCM token would get it (English, the badge
    /// the send gives, or a five-digit count for the service's), refused with 400 naming the
    /// field when APNs would refuse it.
    private func checkMemberPayload(_ request: SendRequest, group: SendRequest.GroupTarget, app: AppRecord?, appId: String) throws {
        let now = service.now
        let factory = JobFactory(
            service: service, requestId: "door", ttlSeconds: request.ttlSeconds, privateMode: PrivateMode(app: app, ids: service.pushIds),
            deliveryPolicy: app?.deliveryPolicy ?? .standard, localization: app?.localization ?? .standard)
        let counted = group.autoBadge || (group.badge == nil && app?.badge == .auto)
        let badge = group.badge ?? (counted ? 99_999 : nil)
        let tokens = [TokenPlatform.apnsDevice, .fcm].map {
            PushTokenRecord(
                appId: appId, uid: "member", token: "door-" + $0.rawValue, platform: $0, providerId: "", timezone: nil,
                authTokenHash: Data(), authTokenHint: "", createdAt: now, updatedAt: now)
        }
        let jobs = factory.jobs(for: request.event, uid: "member", badge: badge, tokens: tokens)
        if let refusal = PayloadSize.check(jobs, event: request.event, badge: badge) { throw refusal }
    }
}
