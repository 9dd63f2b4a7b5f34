#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Seals secrets at rest with AES-256-GCM (OpenSSL). A sealed value is
/// `0x01 ‖ 12-byte nonce ‖ ciphertext ‖ 16-byte tag`; the context string (for example
/// "provider:app1:apns-prod") is authenticated so a sealed value cannot be moved to another row.
public struct SecretBox: Sendable {
    private let key: Data

    /// Creates a box with a 32-byte key.
    public init(key: Data) throws {
        guard key.count == 32 else { throw SecretBoxError.badKey }
        self.key = key
    }

    /// Encrypts `plaintext`, binding it to `context`.
    public func seal(_ plaintext: Data, context: String) throws -> Data {
        let nonce = [UInt8](Crypto.randomBytes(AESGCM.nonceLength))
        guard
            let sealed = AESGCM.seal(
                key: [UInt8](key), nonce: nonce, aad: [UInt8](context.utf8), plaintext: [UInt8](plaintext))
        else { throw SecretBoxError.failed }
        return Data([1] + nonce + sealed)
    }

    /// A key for another purpose derived from the sealing key (HKDF-SHA-256 with `info`), so
    /// that the sealing key itself is never used for anything else: for example the key of
    /// private pushes' keyed ids (info `"push ids"`).
    public func derivedKey(info: String) -> Data {
        Crypto.hkdfSHA256(key: key, info: Data(info.utf8))
    }

    /// Decrypts a sealed value; throws when the key, context or bytes do not match.
    public func open(_ sealed: Data, context: String) throws -> Data {
        let bytes = [UInt8](sealed)
        guard bytes.count >= 1 + AESGCM.nonceLength + AESGCM.tagLength, bytes[0] == 1 else {
            throw SecretBoxError.malformed
        }
        let nonce = Array(bytes[1..<(1 + AESGCM.nonceLength)])
        guard
            let plaintext = AESGCM.open(
                key: [UInt8](key), nonce: nonce, aad: [UInt8](context.utf8),
                sealed: Array(bytes[(1 + AESGCM.nonceLength)...]))
        else { throw SecretBoxError.authenticationFailed }
        return Data(plaintext)
    }
}

/// Why sealing or opening failed.
public enum SecretBoxError: Error, Sendable {
    /// The key is not 32 bytes.
    case badKey
    /// The sealed value is too short or of an unknown version.
    case malformed
    /// Wrong key, wrong context, or tampered bytes.
    case authenticationFailed
    /// OpenSSL failed.
    case failed
}
