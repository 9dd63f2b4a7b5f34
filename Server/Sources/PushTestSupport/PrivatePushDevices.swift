#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushCrypto
import ServerSupport

/// A device of a private app in tests (issue 28): its P-256 key pair and auth secret, as the SDK
/// makes them, and the opening of a push's `enc` as the SDK does it.
public struct TestPushDevice: Sendable {
    /// The device's key pair.
    public let key: P256KeyAgreementKey
    /// The device's 16-byte auth secret.
    public let auth: [UInt8]

    /// A device with a fresh key and secret.
    public init() throws {
        key = try P256KeyAgreementKey()
        auth = [UInt8](Crypto.randomBytes(16))
    }

    /// The keys as the service stores them for `token` of `appId`: the auth secret sealed with
    /// `secrets` under ``StoredEncryptionKeys/sealingContext(appId:token:)``.
    public func stored(appId: String, token: String, secrets: SecretBox) throws -> StoredEncryptionKeys {
        StoredEncryptionKeys(
            p256dh: Data(key.publicKey),
            sealedAuth: try secrets.seal(Data(auth), context: StoredEncryptionKeys.sealingContext(appId: appId, token: token)))
    }

    /// The plaintext of a payload's `enc` (decrypted with this device's key), parsed.
    public func open(_ payload: Data) throws -> [String: Any] {
        let object = try TestPushDevice.object(payload)
        guard let enc = object["enc"] as? String, let message = Base64URL.decode(enc) else {
            throw TestPushDeviceError.noEnc
        }
        return try TestPushDevice.object(Data(WebPushEncryption.decrypt(message, with: key, auth: auth)))
    }

    /// A JSON object.
    public static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONCodec.parse(data) as? [String: Any] else { throw TestPushDeviceError.notAnObject }
        return object
    }
}

/// Why ``TestPushDevice/open(_:)`` failed before decrypting.
public enum TestPushDeviceError: Error {
    /// The payload has no `enc`, or it is not base64url.
    case noEnc
    /// Not a JSON object.
    case notAnObject
}

/// An in-memory ``EncryptionKeyStore``: the keys of tokens as a test sets them, and how many
/// times the sender read them.
public final class MemoryEncryptionKeyStore: EncryptionKeyStore {
    private let keys = Locked<[String: StoredEncryptionKeys]>([:])
    private let readCount = Locked(0)
    private let failing = Locked(false)

    /// An empty store.
    public init() {}

    /// Stores (or with nil removes) the keys of `token` of `appId`: a registration.
    public func set(_ stored: StoredEncryptionKeys?, appId: String, token: String) {
        keys.withLock { $0[appId + "\u{0}" + token] = stored }
    }

    /// Makes every read fail (a store that cannot be read), or succeed again.
    public func fail(_ value: Bool) { failing.withLock { $0 = value } }

    /// How many times the keys were read.
    public var reads: Int { readCount.withLock { $0 } }

    public func encryptionKeys(appId: String, tokens: [String]) throws -> [String: StoredEncryptionKeys] {
        readCount.withLock { $0 += 1 }
        if failing.withLock({ $0 }) { throw TestPushDeviceError.notAnObject }
        return keys.withLock { keys in
            var found: [String: StoredEncryptionKeys] = [:]
            for token in tokens { found[token] = keys[appId + "\u{0}" + token] }
            return found
        }
    }
}
