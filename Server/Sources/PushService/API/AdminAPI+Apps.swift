import PushCrypto
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

extension AdminAPI {
    func createApp(_ call: Call) throws -> Any {
        let body = try call.body()
        let id = try body.optionalString("appId", maxLength: 64) ?? service.newId()
        try Validate.identifier(id, field: "appId", maxLength: 64)
        let name = try body.optionalString("name", maxLength: 256) ?? id
        let webhookURL = try body.optionalString("webhookUrl", maxLength: 2_048)
        if let webhookURL { try validateWebhookURL(webhookURL) }
        let secret = try body.optionalString("webhookSecret", maxLength: 256) ?? Crypto.randomToken(prefix: "whsec_")
        var record = AppRecord(
            id: id, name: name, webhookURL: webhookURL, sealedWebhookSecret: try sealWebhookSecret(secret, appId: id),
            createdAt: service.now)
        try applyPrivacy(body, to: &record)
        try applyDeliveryPolicy(body, to: &record)
        try applyBadge(body, to: &record)
        try applyLocalization(body, to: &record)
        try applyHold(body, to: &record)
        do {
            try service.store.createApp(record)
        } catch StoreError.conflict {
            throw APIError.appAlreadyExists
        }
        service.logger.info("app created app=\(id)")
        var value = appJSON(record)
        value["webhookSecret"] = secret
        return value
    }

    func updateApp(_ call: Call) throws -> Any {
        var record = try existingApp(call.parameter("appId"))
        let body = try call.body()
        if let name = try body.optionalString("name", maxLength: 256) { record.name = name }
        if body.values["webhookUrl"] is JSONNull {
            record.webhookURL = nil
        } else if let url = try body.optionalString("webhookUrl", maxLength: 2_048) {
            try validateWebhookURL(url)
            record.webhookURL = url
        }
        var newSecret: String?
        if let secret = try body.optionalString("webhookSecret", maxLength: 256) {
            newSecret = secret
        } else if try body.bool("rotateWebhookSecret") == true {
            newSecret = Crypto.randomToken(prefix: "whsec_")
        }
        if let newSecret { record.sealedWebhookSecret = try sealWebhookSecret(newSecret, appId: record.id) }
        let privacy = record.privacy
        try applyPrivacy(body, to: &record)
        if record.privacy != privacy { service.logger.info("app privacy set app=\(record.id) privacy=\(record.privacy.rawValue)") }
        try applyDeliveryPolicy(body, to: &record)
        try applyBadge(body, to: &record)
        try applyLocalization(body, to: &record)
        try applyHold(body, to: &record)
        // The default providers (null clears one): each must name a provider of the app of its kind.
        var defaults: [(ProviderRecord.Kind, String?)] = []
        for (kind, field) in [(ProviderRecord.Kind.apns, "defaultApnsProviderId"), (.fcm, "defaultFcmProviderId")] {
            if body.values[field] is JSONNull {
                defaults.append((kind, nil))
            } else if let id = try body.optionalString(field, maxLength: 128) {
                try Validate.identifier(id, field: field)
                guard let provider = try service.store.provider(appId: record.id, id: id) else { throw APIError.providerNotFound }
                guard provider.kind == kind else {
                    throw APIError.badRequest(
                        "Provider \(id) is an \(provider.kind.rawValue) provider; \(field) names an \(kind.rawValue) provider.",
                        field: field, problem: "wrong kind")
                }
                defaults.append((kind, id))
            }
        }
        try service.store.updateApp(record)
        for (kind, id) in defaults {
            // False only when the provider went in the meantime.
            guard try service.store.setDefaultProvider(appId: record.id, kind: kind, providerId: id) else {
                throw APIError.providerNotFound
            }
            if kind == .apns { record.defaultAPNsProviderId = id } else { record.defaultFCMProviderId = id }
            service.logger.info("default provider set app=\(record.id) kind=\(kind.rawValue) provider=\(id ?? "none")")
        }
        var value = appJSON(record)
        if let newSecret { value["webhookSecret"] = newSecret }
        return value
    }

    /// The longest placeholder, in characters (after trimming).
    static let maxPlaceholderLength = 100

    /// Reads an app's privacy settings (issue 28) from a create or update body: `privacy`
    /// (`standard` or `private`), `privatePlaceholder` and `privateCallPlaceholder` (1 to 100
    /// characters once trimmed; null restores the default). Absent fields leave the record as is.
    func applyPrivacy(_ body: JSONObject, to record: inout AppRecord) throws {
        if let text = try body.optionalString("privacy", maxLength: 32) {
            guard let privacy = AppPrivacy(rawValue: text) else {
                throw APIError.badRequest(
                    "The privacy field must be standard or private.", field: "privacy", problem: "not standard or private")
            }
            record.privacy = privacy
        }
        func placeholder(_ field: String) throws -> String?? {
            if body.values[field] is JSONNull { return .some(nil) }
            guard let raw = try body.optionalString(field, maxLength: 1_000) else { return nil }
            var trimmed = Substring(raw)
            while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
            while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
            let text = String(trimmed)
            guard (1...Self.maxPlaceholderLength).contains(text.count) else {
                throw APIError.badRequest(
                    "The \(field) field must be 1 to \(Self.maxPlaceholderLength) characters (trimmed).", field: field,
                    problem: text.isEmpty ? "empty" : "too long")
            }
            return .some(text)
        }
        if let text = try placeholder("privatePlaceholder") { record.privatePlaceholder = text }
        if let text = try placeholder("privateCallPlaceholder") { record.privateCallPlaceholder = text }
    }

    /// Reads an app's badge default (issue 30) from a create or update body: `badge` is
    /// `caller` (pushes carry the count a send gives) or `auto` (the service counts). Absent
    /// leaves the record as is.
    func applyBadge(_ body: JSONObject, to record: inout AppRecord) throws {
        guard let text = try body.optionalString("badge", maxLength: 32) else { return }
        guard let badge = AppBadge(rawValue: text) else {
            throw APIError.badRequest("The badge field must be caller or auto.", field: "badge", problem: "not caller or auto")
        }
        record.badge = badge
    }

    /// Reads `holdWhileActiveSeconds` (issue 31) from a create or update body: 0 (off) to
    /// ``ActivityHold/maxSeconds``. Absent leaves the record as is.
    func applyHold(_ body: JSONObject, to record: inout AppRecord) throws {
        guard let seconds = try body.int("holdWhileActiveSeconds", in: 0...Int64(ActivityHold.maxSeconds)) else { return }
        record.holdWhileActiveSeconds = Int(seconds)
    }

    func sealWebhookSecret(_ secret: String, appId: String) throws -> Data {
        try service.secrets.seal(Data(secret.utf8), context: "webhook:\(appId)")
    }

    /// A webhook URL must be an `https` URL whose host is a public address, or a name that
    /// resolves only to public addresses (``ServiceConfiguration/webhookDestinations``: the
    /// operator may allow private blocks, and loopback over `http` for development). A name
    /// that does not resolve now is accepted: every connection is checked anyway.
    func validateWebhookURL(_ text: String) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else {
            throw APIError.badRequest("The webhookUrl must be an https URL with a host.", field: "webhookUrl", problem: "invalid URL")
        }
        if case .refused(let refusal) = service.configuration.webhookDestinations.check(text) {
            throw APIError.badRequest(
                "The webhookUrl is refused: \(refusal.reason). Webhooks go to https:// URLs of public addresses; the operator can "
                    + "allow private blocks (--allow-private-destinations) and, for development, http:// to this machine "
                    + "(--allow-insecure-webhooks).",
                field: "webhookUrl", problem: refusal.reason)
        }
    }
}
