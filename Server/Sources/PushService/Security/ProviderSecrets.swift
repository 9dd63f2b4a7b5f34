import PushCrypto
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// The ``ProviderDirectory`` of the service: reads a provider from the store and opens its
/// sealed secret. Hand it to the delivery engine.
public struct ProviderSecrets: ProviderDirectory {
    private let store: any ServiceStore
    private let secrets: SecretBox

    /// Creates the directory.
    public init(store: any ServiceStore, secrets: SecretBox) {
        self.store = store
        self.secrets = secrets
    }

    /// The authenticated context a provider secret is sealed under.
    static func context(appId: String, providerId: String) -> String {
        "provider:\(appId):\(providerId)"
    }

    public func credentials(appId: String, providerId: String) throws -> ProviderCredentials? {
        guard let record = try store.provider(appId: appId, id: providerId) else { return nil }
        let secret = String(
            decoding: try secrets.open(record.sealedSecret, context: Self.context(appId: appId, providerId: providerId)), as: UTF8.self)
        let settings = (try JSONCodec.parse(record.settings) as? [String: Any]) ?? [:]
        switch record.kind {
        case .apns:
            return .apns(
                APNsCredentials(
                    keyId: settings["keyId"] as? String ?? "", teamId: settings["teamId"] as? String ?? "",
                    bundleId: settings["bundleId"] as? String ?? "", privateKeyPEM: secret,
                    production: settings["production"] as? Bool ?? false,
                    includeContentAvailable: settings["includeContentAvailable"] as? Bool ?? false,
                    includeMutableContent: settings["includeMutableContent"] as? Bool ?? true))
        case .fcm:
            return .fcm(
                FCMCredentials(
                    projectId: settings["projectId"] as? String ?? "", clientEmail: settings["clientEmail"] as? String ?? "",
                    privateKeyPEM: secret, privateKeyId: settings["privateKeyId"] as? String ?? "",
                    tokenURI: settings["tokenUri"] as? String ?? "https://oauth2.googleapis.com/token",
                    notificationForChat: settings["notificationForChat"] as? Bool ?? true,
                    notificationForCall: settings["notificationForCall"] as? Bool ?? true))
        }
    }
}
