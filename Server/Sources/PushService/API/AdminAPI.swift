import PushCrypto
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// The admin API (`apikey` header; `appid` too for per-app routes): apps, users and auth
/// tokens, providers, tokens, groups, sends. See Server/README.md for the full list.
struct AdminAPI {
    let service: ServiceContext

    var routes: [Route] {
        [
            Route("POST", "apps", .admin) { try createApp($0) },
            Route("GET", "apps", .admin) { _ in try service.store.apps().map(appJSON) },
            Route("GET", "apps/:appId", .admin) { try appJSON(existingApp($0.parameter("appId"))) },
            Route("PUT", "apps/:appId", .admin) { try updateApp($0) },
            Route("DELETE", "apps/:appId", .admin) { call in
                guard try service.store.deleteApp(id: call.parameter("appId")) else { throw APIError.appNotFound }
                return ["appId": call.parameter("appId"), "deleted": true]
            },
            Route("POST", "users", .adminApp) { try createUser($0) },
            Route("GET", "users", .adminApp) { call in try service.store.users(appId: call.appId).map(userJSON) },
            Route("GET", "users/:uid", .adminApp) { call in try userJSON(existingUser(call)) },
            Route("DELETE", "users/:uid", .adminApp) { call in
                guard try service.store.deleteUser(appId: call.appId, uid: call.parameter("uid")) else { throw APIError.userNotFound }
                return ["uid": call.parameter("uid"), "deleted": true]
            },
            Route("POST", "users/:uid/auth_tokens", .adminApp) { call in try createAuthToken(existingUser(call)) },
            Route("GET", "users/:uid/auth_tokens", .adminApp) { call in
                _ = try existingUser(call)
                return try service.store.authTokens(appId: call.appId, uid: call.parameter("uid")).map {
                    ["uid": $0.uid, "authTokenHint": $0.hint, "createdAt": Self.seconds($0.createdAt)] as [String: Any]
                }
            },
            Route("GET", "admin/outbox", .admin) { _ in
                let counts = try service.store.pushJobCounts()
                return [
                    "pushJobs": [
                        "pending": counts.pending, "inFlight": counts.inFlight, "delivered": counts.delivered, "failed": counts.failed,
                        "expired": counts.expired,
                    ],
                    "webhookJobsPending": try service.store.pendingWebhookJobCount(),
                    "deliveryEngine": service.configuration.sender.rawValue,
                ]
            },
        ] + revokeRoutes + providerRoutes + tokenRoutes + sendRoutes + deliveryLogRoutes + healthRoutes
            + PreferencesAPI(service: service).adminRoutes + badgeRoutes + templateRoutes + historyRoutes + groupRoutes
    }

    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970)
    }

    func existingApp(_ id: String) throws -> AppRecord {
        guard let app = try service.store.app(id: id) else { throw APIError.appNotFound }
        return app
    }

    func existingUser(_ call: Call) throws -> UserRecord {
        let uid = call.parameter("uid")
        guard let user = try service.store.user(appId: call.appId, uid: uid) else { throw APIError.userNotFound }
        return user
    }

    func appJSON(_ app: AppRecord) -> [String: Any] {
        var value: [String: Any] = ["appId": app.id, "name": app.name, "createdAt": Self.seconds(app.createdAt)]
        value["webhookUrl"] = app.webhookURL ?? JSONNull()
        value["hasWebhookSecret"] = app.sealedWebhookSecret != nil
        value["defaultApnsProviderId"] = app.defaultAPNsProviderId ?? JSONNull()
        value["defaultFcmProviderId"] = app.defaultFCMProviderId ?? JSONNull()
        // Privacy (issue 28): the placeholders as pushes use them (the defaults when unset).
        value["privacy"] = app.privacy.rawValue
        value["privatePlaceholder"] = app.privatePlaceholder ?? AppPrivacy.defaultPlaceholder
        value["privateCallPlaceholder"] = app.privateCallPlaceholder ?? AppPrivacy.defaultCallPlaceholder
        // Urgency (issue 30): the policy as set, and every kind's level and relevance in effect.
        let policy = Self.deliveryPolicyJSON(app.deliveryPolicy)
        value["deliveryPolicy"] = policy.set
        value["effectiveDeliveryPolicy"] = policy.effective
        value["badge"] = app.badge.rawValue
        // Languages (issue 30): the app's own texts and whether alerts carry `loc-key`.
        value["templates"] = app.localization.templates.mapValues { $0 as [String: Any] }
        value["locKeys"] = app.localization.locKeys
        // Quiet when already reading (issue 31).
        value["holdWhileActiveSeconds"] = app.holdWhileActiveSeconds
        return value
    }

    func userJSON(_ user: UserRecord) -> [String: Any] {
        var value: [String: Any] = ["uid": user.uid, "name": user.name, "createdAt": Self.seconds(user.createdAt)]
        if let avatar = user.avatar { value["avatar"] = avatar }
        return value
    }
}
