import Foundation

/// The cryptographic primitives private push needs, from the platform's own library: CryptoKit
/// on Apple platforms, OpenSSL's libcrypto on Linux. The SDK never implements a primitive
/// itself; the Web Push decryption that combines them (RFC 8291 on RFC 8188) is written once, in
/// the engine.
///
/// Keys are plain bytes: a P-256 private key is its 32-byte big-endian scalar, a public key its
/// 65-byte uncompressed point (`0x04 ‖ x ‖ y`).
public protocol PNPushCrypto: Sendable {
    /// Generates a P-256 key pair.
    func generateP256KeyPair() throws -> PNP256KeyPair
    /// P-256 ECDH: the 32-byte shared secret of `keyPair`'s private key and `peerPublicKey`.
    /// Throws ``PNPushCryptoError/invalidPublicKey`` when `peerPublicKey` is not a point on P-256
    /// and ``PNPushCryptoError/invalidPrivateKey`` when `keyPair` is not a P-256 key pair.
    func sharedSecret(_ keyPair: PNP256KeyPair, peerPublicKey: [UInt8]) throws -> [UInt8]
    /// HKDF-SHA-256 (RFC 5869, extract then expand): `outputByteCount` bytes.
    func hkdfSHA256(
        inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int
    ) throws
        -> [UInt8]
    /// AES-128-GCM decryption without additional data of `ciphertext` followed by its 16-byte
    /// `tag`. Throws ``PNPushCryptoError/authenticationFailed`` when the tag does not verify.
    func openAES128GCM(key: [UInt8], nonce: [UInt8], ciphertextAndTag: [UInt8]) throws -> [UInt8]
    /// AES-128-GCM encryption without additional data: the ciphertext followed by its 16-byte
    /// tag. The sender's side, which the device never needs: for the simulated service and
    /// tests that encrypt pushes as the service does.
    func sealAES128GCM(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws -> [UInt8]
    /// `count` bytes from the system's cryptographically secure random generator.
    func randomBytes(count: Int) throws -> [UInt8]
    /// The 32-byte SHA-256 digest of `bytes`: a call's alert collapse id for a session id over
    /// 64 bytes (Contract/WIRE-CONTRACT.md §5), which the Calls product's missed-call
    /// notification takes as its identifier.
    func sha256(_ bytes: [UInt8]) throws -> [UInt8]
}

extension PNPushCrypto {
    /// Throws ``PNPushCryptoError/unavailable``: a port written before the SDK needed SHA-256.
    public func sha256(_ bytes: [UInt8]) throws -> [UInt8] { throw PNPushCryptoError.unavailable }
}

/// A P-256 key pair as bytes. Its private half is a secret: it lives in the keychain only and
/// never reaches a log line or the diagnostics (its description shows the public key's
/// fingerprint only).
public struct PNP256KeyPair: Sendable, Equatable, CustomStringConvertible {
    /// The private key: the 32-byte big-endian scalar.
    public var privateKey: [UInt8]
    /// The public key: the 65-byte uncompressed point (`0x04 ‖ x ‖ y`).
    public var publicKey: [UInt8]

    /// Creates a key pair from its bytes (not checked here: the crypto port checks it when it
    /// uses it).
    public init(privateKey: [UInt8], publicKey: [UInt8]) {
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    /// `P-256 key <fingerprint of the public key>`: never the private key.
    public var description: String { "P-256 key \(Fingerprint.of(PNBase64URL.encode(publicKey)))" }
}

/// Why a cryptographic primitive failed. Never carries key material.
public enum PNPushCryptoError: Error, Sendable, Equatable {
    /// A public key is not a 65-byte uncompressed point on P-256.
    case invalidPublicKey
    /// A private key is not a 32-byte P-256 scalar (or does not match its public key).
    case invalidPrivateKey
    /// The AES-GCM tag did not verify: another key, or altered bytes.
    case authenticationFailed
    /// This platform has no cryptography library the SDK can use.
    case unavailable
    /// The library failed where valid input cannot fail; the text names the step.
    case failure(String)
}

/// No cryptography (a platform with neither CryptoKit nor OpenSSL): private pushes stay
/// placeholders.
public struct PNUnavailablePushCrypto: PNPushCrypto {
    /// Creates the stand-in.
    public init() {}
    /// Throws ``PNPushCryptoError/unavailable``.
    public func generateP256KeyPair() throws -> PNP256KeyPair { throw PNPushCryptoError.unavailable }
    /// Throws ``PNPushCryptoError/unavailable``.
    public func sharedSecret(_ keyPair: PNP256KeyPair, peerPublicKey: [UInt8]) throws -> [UInt8] {
        throw PNPushCryptoError.unavailable
    }
    /// Throws ``PNPushCryptoError/unavailable``.
    public func hkdfSHA256(
        inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int
    ) throws
        -> [UInt8]
    { throw PNPushCryptoError.unavailable }
    /// Throws ``PNPushCryptoError/unavailable``.
    public func openAES128GCM(key: [UInt8], nonce: [UInt8], ciphertextAndTag: [UInt8]) throws -> [UInt8] {
        throw PNPushCryptoError.unavailable
    }
    /// Throws ``PNPushCryptoError/unavailable``.
    public func sealAES128GCM(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        throw PNPushCryptoError.unavailable
    }
    /// Throws ``PNPushCryptoError/unavailable``.
    public func randomBytes(count: Int) throws -> [UInt8] { throw PNPushCryptoError.unavailable }
}
