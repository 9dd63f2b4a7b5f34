#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushCrypto
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
            // The conversation this device shows now (issue 31): the user's other devices wait.
            Route("PUT", "notifications/push/v1/activity", .client) { call in
                guard let session = call.session else { throw APIError.authTokenNotFound }
                return try ActivityHold.report(
                    call, service: service, appId: session.appId, uid: session.uid,
                    source: ActivityHold.source(authTokenHash: session.authTokenHash))
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
        let keys = try Self.encryptionKeys(body)
        let languages = try Self.languages(body)
        let provider = try resolveProvider(
            appId: session.appId, requested: body.optionalString("providerId", maxLength: 128), platform: platform)
        // The auth secret sealed before it is stored; no registration, no line of the log, no
        // listing ever shows it.
        let encryption = try keys.map {
            try TokenEncryptionKeys(secrets: service.secrets).seal($0, appId: session.appId, token: token)
        }
        let now = service.now
        let record = try service.store.registerToken(
            PushTokenRecord(
                appId: session.appId, uid: session.uid, token: token, platform: platform, providerId: provider.id, timezone: timezone,
                authTokenHash: session.authTokenHash, authTokenHint: session.authTokenHint, createdAt: now, updatedAt: now,
                environment: environment, encryption: encryption, languages: languages),
            maxPerUser: service.configuration.maxTokensPerUser)
        service.logger.info(
            "token registered app=\(session.appId) uid=\(session.uid) platform=\(platform.rawValue) token=\(token.prefix(8))… "
                + "encrypted=\(encryption != nil) languages=\(languages.count)")
        return TokenJSON.client(record)
    }

    /// The optional `languages` of a registration (issue 30): the device's preferred languages,
    /// most preferred first, that its pushes are written in (``PushTemplates``). At most
    /// ``PushTemplates/maxTokenLanguages`` BCP-47 tags; anything else is a 400 naming `languages`.
    /// Kept as given, duplicates (in any case) dropped.
    static func languages(_ body: JSONObject) throws(APIError) -> [String] {
        guard let raw = body["languages"] else { return [] }
        let limit = PushTemplates.maxTokenLanguages
        guard let items = raw as? [Any], items.count <= limit else {
            throw .badRequest(
                "The languages field must be an array of at most \(limit) language tags, such as [\"de-CH\", \"de\", \"en\"].",
                field: "languages", problem: "not an array of at most \(limit) items")
        }
        var tags: [String] = []
        for (index, item) in items.enumerated() {
            guard let tag = item as? String, PushTemplates.isLanguageTag(tag) else {
                throw .badRequest(
                    "Item \(index) of languages is not a language tag (letters, digits and -, such as de-CH; at most "
                        + "\(PushTemplates.maxTagLength) characters).",
                    field: "languages", problem: "not a language tag")
            }
            if !tags.contains(where: { $0.lowercased() == tag.lowercased() }) { tags.append(tag) }
        }
        return tags
    }

    /// The longest `p256dh` or `auth` text read: a 65-byte key is 87 base64url characters (88
    /// padded); more is refused before it is decoded.
    static let maxEncryptionKeyLength = 128

    /// The optional `encryption` of a registration (issue 28): the device's Web Push keys,
    /// checked by `WebPushKeys`. A bad value is a 400 naming `encryption`, `encryption.p256dh`
    /// or `encryption.auth`; the error never repeats the value.
    static func encryptionKeys(_ body: JSONObject) throws -> WebPushKeys? {
        guard let encryption = try body.optionalObject("encryption") else { return nil }
        let p256dh = try encryption.string("p256dh", maxLength: maxEncryptionKeyLength)
        let auth = try encryption.string("auth", maxLength: maxEncryptionKeyLength)
        let parsed = Result { () throws(WebPushError) -> WebPushKeys in try WebPushKeys(p256dh: p256dh, auth: auth) }
        switch parsed {
        case .success(let keys):
            return keys
        case .failure(let error):
            switch error {
            case .invalidBase64URL(let field):
                throw APIError.badRequest(
                    "The encryption.\(field) field is not base64url.", field: "encryption.\(field)", problem: "not base64url")
            case .invalidAuth(let length):
                throw APIError.badRequest(
                    "The encryption.auth field must be 16 bytes, not \(length).", field: "encryption.auth", problem: "not 16 bytes")
            case .invalidP256DH(let problem):
                throw APIError.badRequest(
                    "The encryption.p256dh field is not a P-256 public key: \(problem).", field: "encryption.p256dh", problem: problem)
            default:
                throw APIError.badRequest(
                    "The encryption field is not valid.", field: "encryption", problem: "invalid")
            }
        }
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
