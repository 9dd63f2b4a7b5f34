import CCrypto
import Foundation
import PushStore

/// `--seed-dev`: an app, a user with an auth token, and an APNs provider (with a freshly
/// generated P-256 key, so nothing real is needed), for local runs and end-to-end tests.
/// The values are written to `<data-dir>/dev-seed.json` (mode 0600), never logged.
public struct DevSeed: Sendable {
    /// The app id.
    public let appId: String
    /// The user id.
    public let uid: String
    /// The user's auth token (secret).
    public let authToken: String
    /// The APNs provider id.
    public let providerId: String

    static func apply(context: ServiceContext) throws -> DevSeed {
        let configuration = context.configuration
        let store = context.store
        let now = context.now
        let admin = AdminAPI(service: context)
        if try store.app(id: configuration.seedAppId) == nil {
            let secret = Crypto.randomToken(prefix: "whsec_")
            try store.createApp(
                AppRecord(
                    id: configuration.seedAppId, name: "Development app", webhookURL: configuration.seedWebhookURL,
                    sealedWebhookSecret: try admin.sealWebhookSecret(secret, appId: configuration.seedAppId), createdAt: now))
        }
        let user: UserRecord
        if let existing = try store.user(appId: configuration.seedAppId, uid: configuration.seedUid) {
            user = existing
        } else {
            user = UserRecord(appId: configuration.seedAppId, uid: configuration.seedUid, name: configuration.seedUid, createdAt: now)
            try store.createUser(user)
        }
        let token = configuration.seedAuthToken ?? "\(user.uid)_\(Crypto.randomBytes(24).hexString)"
        if try store.authToken(hash: Crypto.sha256(token)) == nil {
            _ = try admin.issueAuthToken(user, token: token)
        }
        if try store.provider(appId: configuration.seedAppId, id: configuration.seedProviderId) == nil {
            let pem = try generateP256PEM()
            let settings: [String: Any] = [
                "keyId": "DEVKEY0001", "teamId": "DEVTEAM001", "bundleId": "com.example.pushdev", "production": false,
                "includeContentAvailable": false, "includeMutableContent": true,
            ]
            try store.createProvider(
                ProviderRecord(
                    appId: configuration.seedAppId, id: configuration.seedProviderId, kind: .apns, settings: JSON.encode(settings),
                    sealedSecret: try context.secrets.seal(
                        Data(pem.utf8), context: ProviderSecrets.context(appId: configuration.seedAppId, providerId: configuration.seedProviderId)),
                    createdAt: now, updatedAt: now))
        }
        context.logger.info("dev seed ready: app=\(configuration.seedAppId) uid=\(user.uid) provider=\(configuration.seedProviderId)")
        return DevSeed(appId: configuration.seedAppId, uid: user.uid, authToken: token, providerId: configuration.seedProviderId)
    }

    /// Where ``write(port:host:dataDirectory:)`` puts the seed.
    public static func path(dataDirectory: String) -> String {
        (dataDirectory as NSString).appendingPathComponent("dev-seed.json")
    }

    func write(port: Int, host: String, dataDirectory: String) throws {
        let value: [String: Any] = [
            "baseURL": "http://\(host):\(port)", "appId": appId, "uid": uid, "authToken": authToken, "providerId": providerId,
        ]
        try KeyFiles.write(String(decoding: JSON.encode(value), as: UTF8.self) + "\n", to: Self.path(dataDirectory: dataDirectory))
    }

    static func generateP256PEM() throws -> String {
        var buffer = [CChar](repeating: 0, count: 1_024)
        let length = buffer.withUnsafeMutableBufferPointer { ccrypto_generate_p256_pem($0.baseAddress, $0.count) }
        guard length > 0 else { throw ConfigurationError.invalid("could not generate a development APNs key") }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
