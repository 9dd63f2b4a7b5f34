#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// Read state in sync across a user's devices: a conversation read on one device becomes a
/// background push to the user's other devices, which clear its notifications and set the
/// badge to the count the push carries, and an entry of the user's changes feed (``ChangesAPI``).
struct ReadSync {
    let service: ServiceContext

    /// How long APNs keeps a read push for a device that is off (it only clears
    /// notifications, so a late one does no harm).
    static let ttlSeconds: Int64 = 86_400

    /// Parses the body (`receiverType`, `receiver`, optional `unreadCount`), queues a read
    /// push to each of `uid`'s alert tokens except those registered with `excludingAuthTokenHash`,
    /// and answers `{conversationId, devices}`, with `unreadCount` (the service's total) when the
    /// service counts the user's badge and the reader gave no count: the reading device sets its
    /// badge from it.
    func handle(_ call: Call, appId: String, uid: String, excludingAuthTokenHash: Data?) throws -> Any {
        let body = try call.body()
        let receiverType = try body.string("receiverType", maxLength: 16)
        guard ["user", "group"].contains(receiverType) else {
            throw APIError.badRequest("The receiverType field must be user or group.", field: "receiverType", problem: receiverType)
        }
        let receiver = try body.string("receiver", maxLength: 128)
        try Validate.identifier(receiver, field: "receiver")
        let givenCount = try body.int("unreadCount", in: 0...1_000_000).map { Int($0) }
        let conversationId = PayloadBuilder.conversationId(sender: uid, receiver: receiver, receiverType: receiverType)
        let badge = try countedBadge(appId: appId, uid: uid, conversationId: conversationId)
        // Pushes of this conversation held while the user read it elsewhere (issue 31) go no more.
        let cancelled = try service.store.cancelHeldPushes(
            appId: appId, uid: uid, conversationId: conversationId, rule: ActivityHold.cancelRule, now: service.now)
        // A count the reader gave wins; else the service's total, when it counts for this user.
        let unreadCount = givenCount ?? badge
        let tokens = try service.store.tokens(appId: appId, uid: uid).filter {
            $0.platform != .apnsVoIP && (excludingAuthTokenHash == nil || $0.authTokenHash != excludingAuthTokenHash)
        }
        let jobs = Self.jobs(
            service: service, requestId: "read-" + service.newId(), uid: uid, conversationId: conversationId,
            unreadCount: unreadCount, badge: givenCount == nil ? badge : nil, tokens: tokens,
            privateMode: try service.privateMode(appId: appId))
        // The read, for the user's changes feed, in one transaction with its pushes.
        let now = service.now
        let change = PushChange(
            appId: appId, uid: uid, kind: .read, conversationId: conversationId, unreadCount: unreadCount, at: now, createdAt: now)
        try service.store.record(changes: [change], pushJobs: jobs)
        service.logger.info("read app=\(appId) uid=\(uid) devices=\(jobs.count) cancelledHeld=\(cancelled.count)")
        var answer: [String: Any] = ["conversationId": conversationId, "devices": jobs.count]
        if givenCount == nil, let badge { answer["unreadCount"] = badge }
        return answer
    }

    /// The badge the service counts (issue 30): the read takes the conversation's messages
    /// away from `uid`'s count; the total after it, when the service counts for the user (the
    /// app's default is `auto`, or the user has or had messages counted), else nil.
    func countedBadge(appId: String, uid: String, conversationId: String) throws -> Int? {
        let (removed, total) = try service.store.removeUnread(appId: appId, uid: uid, conversationId: conversationId, now: service.now)
        if removed > 0 || total > 0 { return total }
        return try service.store.app(id: appId)?.badge == .auto ? total : nil
    }

    /// One background push per token: `apns-push-type: background`, priority 5,
    /// `aps.content-available: 1`, no alert or sound in `aps` (the SDK sets the badge to
    /// `unreadCount`); with `badge` (the service's total, issue 30) also `aps.badge`, which iOS
    /// applies even when it does not wake the app.
    /// In a private app (`privateMode`) the payload is sealed, with the conversation's keyed
    /// `threadId` added so that the SDK finds the notifications by their `thread-id`.
    static func jobs(
        service: ServiceContext, requestId: String, uid: String, conversationId: String, unreadCount: Int?, badge: Int? = nil,
        tokens: [PushTokenRecord], privateMode: PrivateMode? = nil
    ) -> [PushJob] {
        let now = service.now
        var aps: [String: Any] = ["content-available": 1]
        if let badge { aps["badge"] = badge }
        var payload: [String: Any] = ["type": "read", "conversationId": conversationId, "aps": aps]
        if let unreadCount { payload["unreadCount"] = String(unreadCount) }
        var sealed: (clear: Data, plaintext: Data, trimmed: [String])?
        if let privateMode {
            payload["threadId"] = privateMode.recipient(uid).thread(conversationId: conversationId)
            sealed = PrivatePayload.build(payload, shape: .background, voip: false)
        }
        let encoded = sealed?.clear ?? JSON.encode(payload)
        let headers = PushHeaders(
            pushType: .background, priority: 5, expiration: Int64(now.timeIntervalSince1970) + ttlSeconds, collapseId: nil,
            topicSuffix: "")
        return tokens.map { token in
            let id = service.newId()
            var job = PushJob(
                id: id, appId: token.appId, requestId: requestId, uid: uid, token: token.token, platform: token.platform, kind: .read,
                providerId: token.providerId, payload: PayloadBuilder.stamp(encoded, pushId: id), headers: headers, notBefore: now,
                createdAt: now, environment: token.environment)
            if let sealed {
                job.privatePush = PrivatePush(plaintext: PayloadBuilder.stamp(sealed.plaintext, pushId: id), trimmed: sealed.trimmed)
            }
            return job
        }
    }
}
