#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// The client API of Contract/WIRE-CONTRACT.md §2 (`appid` + `authToken`): tokens, receipts,
/// quick replies, campaign receipts, call status.
struct ClientAPI {
    let service: ServiceContext

    var routes: [Route] {
        [
            Route("POST", "notifications/push/v1/tokens", .client) { try registerToken($0) },
            Route("DELETE", "notifications/push/v1/tokens", .client) { try unregisterTokens($0) },
            Route("POST", "users/:uid/conversation/delivered", .client) {
                try delivered($0, receiverType: "user", id: $0.parameter("uid"))
            },
            Route("POST", "groups/:guid/conversation/delivered", .client) {
                try delivered($0, receiverType: "group", id: $0.parameter("guid"))
            },
            Route("POST", "messages", .client) { try quickReply($0, parentId: nil) },
            Route("POST", "messages/:parentId/thread", .client) { try quickReply($0, parentId: $0.parameter("parentId")) },
            Route("PUT", "campaigns/push-notifications/:id/delivered", .client) { try campaign($0, action: "delivered") },
            Route("PUT", "campaigns/push-notifications/:id/clicked", .client) { try campaign($0, action: "clicked") },
            Route("PUT", "calls/:sessionId", .client) { try callStatus($0) },
            Route("POST", "notifications/push/v1/pushes/:pushId/opened", .client) { try opened($0) },
            Route("POST", "notifications/push/v1/read", .client) { call in
                guard let session = call.session else { throw APIError.authTokenNotFound }
                return try ReadSync(service: service).handle(
                    call, appId: session.appId, uid: session.uid, excludingAuthTokenHash: session.authTokenHash)
            },
        ] + PreferencesAPI(service: service).clientRoutes + ChangesAPI(service: service).clientRoutes
    }

    /// The longest token the service stores (§2).
    static let maxTokenLength = 4_096

    func registerToken(_ call: Call) throws -> Any {
        guard let session = call.session else { throw APIError.authTokenNotFound }
        let body = try call.body()
        guard
            let token = try body.optionalString("fcmToken", maxLength: Self.maxTokenLength)
                ?? body.optionalString("pushToken", maxLength: Self.maxTokenLength)
        else {
            throw APIError.badRequest("The fcmToken field is required.", field: "fcmToken", problem: "missing")
        }
        guard !token.contains(where: { $0 == " " || !$0.isASCII }) else {
            throw APIError.badRequest("The token must be printable ASCII without spaces.", field: "fcmToken", problem: "invalid characters")
        }
        let platformText = try body.string("platform", maxLength: 64)
        guard let platform = TokenPlatform(rawValue: platformText) else {
            throw APIError.badRequest("The platform field is not valid.", field: "platform", problem: platformText)
        }
        let timezone = try body.optionalString("timezone", maxLength: 64)
        // The token's APNs environment (the `aps-environment` of the app's provisioning
        // profile), when the SDK can tell; optional.
        var environment: TokenEnvironment?
        if let text = try body.optionalString("environment", maxLength: 32) {
            guard platform.isAPNs, let value = TokenEnvironment(rawValue: text) else {
                throw APIError.badRequest(
                    "The environment field must be sandbox or production (APNs tokens only).", field: "environment",
                    problem: "not sandbox or production")
            }
            environment = value
        }
        let provider = try resolveProvider(
            appId: session.appId, requested: body.optionalString("providerId", maxLength: 128), platform: platform)
        let now = service.now
        let record = try service.store.registerToken(
            PushTokenRecord(
                appId: session.appId, uid: session.uid, token: token, platform: platform, providerId: provider.id, timezone: timezone,
                authTokenHash: session.authTokenHash, authTokenHint: session.authTokenHint, createdAt: now, updatedAt: now,
                environment: environment),
            maxPerUser: service.configuration.maxTokensPerUser)
        service.logger.info(
            "token registered app=\(session.appId) uid=\(session.uid) platform=\(platform.rawValue) token=\(token.prefix(8))…")
        return TokenJSON.client(record)
    }

    private func resolveProvider(appId: String, requested: String?, platform: TokenPlatform) throws -> ProviderRecord {
        let wanted: ProviderRecord.Kind = platform == .fcm ? .fcm : .apns
        if let requested {
            guard let provider = try service.store.provider(appId: appId, id: requested) else { throw APIError.providerNotFound }
            guard provider.kind == wanted else {
                throw APIError.badRequest(
                    "Provider \(requested) is an \(provider.kind.rawValue) provider; \(platform.rawValue) tokens need \(wanted.rawValue).",
                    field: "providerId", problem: "wrong kind")
            }
            return provider
        }
        // The app's default provider of the kind: set explicitly, or its first provider of the
        // kind (recorded when it was added, so adding another never moves these tokens).
        guard let id = try service.store.app(id: appId)?.defaultProviderId(wanted),
            let provider = try service.store.provider(appId: appId, id: id), provider.kind == wanted
        else {
            let kind = wanted == .apns ? "APNs" : "FCM"
            let field = wanted == .apns ? "defaultApnsProviderId" : "defaultFcmProviderId"
            throw APIError.badRequest(
                "The app has no default \(kind) provider; name one (providerId) or set the app's default (\(field) of PUT /apps/{appId}).",
                field: "providerId", problem: "the app has no default \(kind) provider")
        }
        return provider
    }

    func unregisterTokens(_ call: Call) throws -> Any {
        guard let session = call.session else { throw APIError.authTokenNotFound }
        let count = try service.store.deleteTokens(appId: session.appId, authTokenHash: session.authTokenHash)
        service.logger.info("tokens unregistered app=\(session.appId) uid=\(session.uid) count=\(count)")
        return ["deleted": count]
    }
}
