import APNs
import FCM
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

/// APNs and FCM providers (§3). Secrets are sealed before they reach the store and are
/// never returned.
extension AdminAPI {
    var providerRoutes: [Route] {
        [
            Route("POST", "notifications/push/v1/providers/apns", .adminApp) { try saveAPNs($0, create: true) },
            Route("PUT", "notifications/push/v1/providers/apns", .adminApp) { try saveAPNs($0, create: false) },
            Route("POST", "notifications/push/v1/providers/fcm", .adminApp) { try saveFCM($0, create: true) },
            Route("PUT", "notifications/push/v1/providers/fcm", .adminApp) { try saveFCM($0, create: false) },
            Route("GET", "notifications/push/v1/providers", .adminApp) { call in
                try service.store.providers(appId: call.appId).map(providerJSON)
            },
            Route("DELETE", "notifications/push/v1/providers/:providerId", .adminApp) { call in
                guard try service.store.deleteProvider(appId: call.appId, id: call.parameter("providerId")) else {
                    throw APIError.providerNotFound
                }
                service.delivery.withLock { $0 }?.providerUpdated(appId: call.appId, providerId: call.parameter("providerId"))
                return ["providerId": call.parameter("providerId"), "deleted": true]
            },
        ]
    }

    func saveAPNs(_ call: Call, create: Bool) throws -> Any {
        let body = try call.body()
        let id = try Self.providerId(body)
        let key =
            try body.optionalString("p8Key", maxLength: 8_192, allowNewlines: true)
            ?? body.string("privateKey", maxLength: 8_192, allowNewlines: true)
        guard key.contains("-----BEGIN PRIVATE KEY-----"), key.contains("-----END PRIVATE KEY-----") else {
            throw APIError.badRequest("The p8Key must be the PEM text of the .p8 key.", field: "p8Key", problem: "not a PEM private key")
        }
        // The bundle id becomes the `apns-topic` header (with `.voip` for VoIP pushes).
        let bundleId = try body.string("bundleId", maxLength: 256)
        if let problem = APNsLimits.bundleIdProblem(bundleId) {
            throw APIError.badRequest(
                "The bundleId must be the app's bundle id (letters, digits, - and ., at most \(APNsLimits.maxBundleIdBytes) characters): \(problem).",
                field: "bundleId", problem: problem)
        }
        let settings: [String: Any] = [
            "keyId": try body.string("keyId", maxLength: 64),
            "teamId": try body.string("teamId", maxLength: 64),
            "bundleId": bundleId,
            "production": try body.bool("production") ?? false,
            "includeContentAvailable": try body.bool("includeContentAvailable") ?? false,
            "includeMutableContent": try body.bool("includeMutableContent") ?? true,
        ]
        return try save(call, id: id, kind: .apns, settings: settings, secret: Data(key.utf8), create: create)
    }

    func saveFCM(_ call: Call, create: Bool) throws -> Any {
        let body = try call.body()
        let id = try Self.providerId(body)
        let account = try body.object("serviceAccountCreds")
        let privateKey = try account.string("private_key", maxLength: 8_192, allowNewlines: true)
        guard privateKey.contains("PRIVATE KEY-----") else {
            throw APIError.badRequest(
                "serviceAccountCreds.private_key must be PEM text.", field: "serviceAccountCreds.private_key",
                problem: "not a PEM private key")
        }
        let ios = try body.optionalObject("notificationInPayload")?.optionalObject("ios")
        let projectId = try account.string("project_id", maxLength: 256)
        try Self.validateProjectId(projectId)
        let tokenURI = try account.optionalString("token_uri", maxLength: 2_048) ?? "https://oauth2.googleapis.com/token"
        try validateTokenURI(tokenURI)
        let settings: [String: Any] = [
            "projectId": projectId,
            "clientEmail": try account.string("client_email", maxLength: 256),
            "privateKeyId": try account.string("private_key_id", maxLength: 256),
            "tokenUri": tokenURI,
            "notificationForChat": try ios?.bool("chat") ?? true,
            "notificationForCall": try ios?.bool("call") ?? true,
        ]
        return try save(call, id: id, kind: .fcm, settings: settings, secret: Data(privateKey.utf8), create: create)
    }

    /// A `project_id` goes into the path of every FCM send (`/v1/projects/<id>/messages:send`):
    /// 1 to 128 letters, digits, `-`, `.`, `:` or `_`, the first a letter or digit (Google's
    /// project ids, domain-scoped ones such as `example.com:project` included).
    static func validateProjectId(_ id: String) throws {
        let allowed = Array("-.:_".utf8)
        let bytes = Array(id.utf8)
        let alphanumeric = { (byte: UInt8) in (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        guard (1...128).contains(bytes.count), alphanumeric(bytes[0]), bytes.allSatisfy({ alphanumeric($0) || allowed.contains($0) }) else {
            throw APIError.badRequest(
                "serviceAccountCreds.project_id must be 1 to 128 letters, digits, '-', '.', ':' or '_', starting with a letter or digit.",
                field: "serviceAccountCreds.project_id", problem: "not a project id")
        }
    }

    /// A `token_uri` gets the service account's signed assertion: it must be Google's
    /// (``FCMServiceAccount/googleTokenURIs``), or an `https` URL whose host resolves into
    /// `--allow-private-destinations` only (a test server).
    func validateTokenURI(_ uri: String) throws {
        guard !FCMServiceAccount.googleTokenURIs.contains(uri) else { return }
        let field = "serviceAccountCreds.token_uri"
        let policy = FCMServiceAccount.tokenDestinations(for: uri, base: service.configuration.delivery.tokenDestinations)
        let problem: String
        switch policy.check(uri) {
        case .allowed: return
        case .unresolved(let host): problem = "\(host) does not resolve"
        case .refused(let refusal): problem = refusal.reason
        }
        throw APIError.badRequest(
            "serviceAccountCreds.token_uri is refused: \(problem). It must be Google's OAuth token endpoint "
                + "(https://oauth2.googleapis.com/token, as in the service account file), or an https URL of a host in "
                + "--allow-private-destinations (a test server).",
            field: field, problem: problem)
    }

    /// A provider id: an id, but not `apns` or `fcm` (`DELETE /providers/apns` is no delete).
    static func providerId(_ body: JSONObject) throws -> String {
        let id = try body.string("providerId", maxLength: 128)
        try Validate.identifier(id, field: "providerId")
        guard !["apns", "fcm"].contains(id) else {
            throw APIError.badRequest("The providerId cannot be apns or fcm.", field: "providerId", problem: "reserved")
        }
        return id
    }

    private func save(
        _ call: Call, id: String, kind: ProviderRecord.Kind, settings: [String: Any], secret: Data, create: Bool
    ) throws -> Any {
        let now = service.now
        let sealed = try service.secrets.seal(secret, context: ProviderSecrets.context(appId: call.appId, providerId: id))
        var record = ProviderRecord(
            appId: call.appId, id: id, kind: kind, settings: JSON.encode(settings), sealedSecret: sealed, createdAt: now, updatedAt: now)
        if create {
            do {
                try service.store.createProvider(record)
            } catch StoreError.conflict {
                throw APIError.providerAlreadyExists
            }
        } else {
            guard let existing = try service.store.provider(appId: call.appId, id: id) else { throw APIError.providerNotFound }
            guard existing.kind == kind else {
                throw APIError.badRequest(
                    "Provider \(id) is an \(existing.kind.rawValue) provider.", field: "providerId", problem: "wrong kind")
            }
            record.createdAt = existing.createdAt
            try service.store.updateProvider(record)
        }
        service.logger.info("provider saved app=\(call.appId) provider=\(id) kind=\(kind.rawValue)")
        // The engine reads it again at once; a misconfigured provider's waiting jobs are retried.
        service.delivery.withLock { $0 }?.providerUpdated(appId: call.appId, providerId: id)
        return providerJSON(record)
    }

    func providerJSON(_ provider: ProviderRecord) -> [String: Any] {
        var value = (try? JSONCodec.parse(provider.settings) as? [String: Any]) ?? [:]
        value["providerId"] = provider.id
        value["type"] = provider.kind.rawValue
        value["createdAt"] = Self.seconds(provider.createdAt)
        value["updatedAt"] = Self.seconds(provider.updatedAt)
        return value
    }
}
