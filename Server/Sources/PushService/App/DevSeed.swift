import PushCrypto
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

/// `--seed-dev`: an app, a user with an auth token, an APNs provider (`dev-apns`, freshly
/// generated P-256 key) and an FCM provider (`dev-fcm`, generated RSA key) — nothing real is
/// needed — for local runs and end-to-end tests.
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
    /// The FCM provider id.
    public let fcmProviderId: String

    static func apply(context: ServiceContext) throws -> DevSeed {
        let configuration = context.configuration
        let store = context.store
        let now = context.now
        let admin = AdminAPI(service: context)
        if try store.app(id: configuration.seedAppId) == nil {
            if let url = configuration.seedWebhookURL, case .refused(let refusal) = configuration.webhookDestinations.check(url) {
                throw ConfigurationError.invalid(
                    "--seed-webhook-url: \(refusal) (see --allow-insecure-webhooks and --allow-private-destinations)")
            }
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
            let pem = try generatePEM(rsa: false)
            let settings: [String: Any] = [
                "keyId": "DEVKEY0001", "teamId": "DEVTEAM001", "bundleId": "com.example.pushdev", "production": false,
                "includeContentAvailable": false, "includeMutableContent": true,
            ]
            try store.createProvider(
                ProviderRecord(
                    appId: configuration.seedAppId, id: configuration.seedProviderId, kind: .apns, settings: JSON.encode(settings),
                    sealedSecret: try context.secrets.seal(
                        Data(pem.utf8),
                        context: ProviderSecrets.context(appId: configuration.seedAppId, providerId: configuration.seedProviderId)),
                    createdAt: now, updatedAt: now))
        }
        let fcmId = configuration.seedFCMProviderId
        if try store.provider(appId: configuration.seedAppId, id: fcmId) == nil {
            let pem = try generatePEM(rsa: true)
            let settings: [String: Any] = [
                "projectId": "push-dev", "clientEmail": "push-dev@push-dev.iam.gserviceaccount.com", "privateKeyId": "dev-key-1",
                "tokenUri": "https://oauth2.googleapis.com/token", "notificationForChat": true, "notificationForCall": true,
            ]
            try store.createProvider(
                ProviderRecord(
                    appId: configuration.seedAppId, id: fcmId, kind: .fcm, settings: JSON.encode(settings),
                    sealedSecret: try context.secrets.seal(
                        Data(pem.utf8), context: ProviderSecrets.context(appId: configuration.seedAppId, providerId: fcmId)),
                    createdAt: now, updatedAt: now))
        }
        context.logger.info("dev seed ready: app=\(configuration.seedAppId) uid=\(user.uid) provider=\(configuration.seedProviderId)")
        return DevSeed(
            appId: configuration.seedAppId, uid: user.uid, authToken: token, providerId: configuration.seedProviderId, fcmProviderId: fcmId)
    }

    /// Where ``write(port:host:dataDirectory:)`` puts the seed.
    public static func path(dataDirectory: String) -> String {
        dataDirectory.appendingPathComponent(fileName)
    }

    /// The seed file's name in the data directory.
    static let fileName = "dev-seed.json"

    func write(port: Int, host: String, dataDirectory: String) throws {
        let value: [String: Any] = [
            "baseURL": "http://\(host):\(port)", "appId": appId, "uid": uid, "authToken": authToken, "providerId": providerId,
            "fcmProviderId": fcmProviderId,
        ]
        try KeyFiles.write(String(decoding: JSON.encode(value), as: UTF8.self) + "\n", to: Self.path(dataDirectory: dataDirectory))
    }

    static func generatePEM(rsa: Bool) throws -> String {
        guard let pem = Crypto.generatePrivateKeyPEM(rsa: rsa) else {
            throw ConfigurationError.invalid("could not generate a development APNs key")
        }
        return pem
    }
}
