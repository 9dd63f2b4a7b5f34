import PushCore
import PushCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A device's Web Push keys between the registration and the store (issue 28,
/// `docs/design/private-push.md`): the auth secret is sealed with the service's ``SecretBox``
/// under ``StoredEncryptionKeys/sealingContext(appId:token:)`` before it is stored, as provider
/// secrets are; the public key is stored as is. The sender of private pushes reads
/// ``StoredEncryptionKeys`` through ``EncryptionKeyStore`` and opens them here.
public struct TokenEncryptionKeys: Sendable {
    private let secrets: SecretBox

    /// Creates the sealer and opener with the service's secret box.
    public init(secrets: SecretBox) {
        self.secrets = secrets
    }

    /// The keys as the store keeps them for `token` of app `appId`.
    public func seal(_ keys: WebPushKeys, appId: String, token: String) throws -> StoredEncryptionKeys {
        let sealed = try secrets.seal(
            Data(keys.auth), context: StoredEncryptionKeys.sealingContext(appId: appId, token: token))
        return StoredEncryptionKeys(p256dh: Data(keys.p256dh), sealedAuth: sealed)
    }

    /// The keys stored for `token` of app `appId`, opened and checked again.
    /// - Throws: `SecretBoxError` when the auth secret was sealed with another key or for another
    ///   token; `WebPushError` when the stored values are not valid keys.
    public func open(_ stored: StoredEncryptionKeys, appId: String, token: String) throws -> WebPushKeys {
        let auth = try secrets.open(stored.sealedAuth, context: StoredEncryptionKeys.sealingContext(appId: appId, token: token))
        return try WebPushKeys(p256dh: [UInt8](stored.p256dh), auth: [UInt8](auth))
    }
}
