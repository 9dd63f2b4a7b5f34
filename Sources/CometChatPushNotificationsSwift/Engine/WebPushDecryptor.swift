import Foundation

/// Why a private push could not be opened. Its ``description`` is what the log and
/// `getDiagnostics()` say; it never holds key material or payload text.
@_spi(PNProducts)
public enum PNPrivatePushFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// `enc` is not a base64url string.
    case notBase64URL
    /// The message is not one RFC 8188 `aes128gcm` record as RFC 8291 sends it (truncated, a
    /// key id that is not 65 bytes, more than one record); the text says what.
    case malformed(String)
    /// The sender's key (the record's key id) is not a point on P-256.
    case invalidSenderKey
    /// No key of this device opens it: the tag did not verify with the current key, nor with
    /// the previous one within its day (a key from another device, an expired key, or altered
    /// bytes).
    case authenticationFailed
    /// The record opened but its padding is not that of a last record (0x02, then zeros).
    case invalidPadding
    /// The plaintext is not a UTF-8 JSON object.
    case notJSON
    /// This device has no private push key (none created, or the keychain cannot be read: before
    /// the first unlock, or without the App Group's keychain access group).
    case noKey
    /// The key in the keychain is not a P-256 key pair.
    case unusableKey
    /// The platform has no cryptography library.
    case cryptoUnavailable
    /// The cryptography library failed; the text names the step.
    case cryptoFailure(String)

    /// A short name for the failure, for logs and diagnostics.
    public var code: String {
        switch self {
        case .notBase64URL: return "notBase64URL"
        case .malformed: return "malformed"
        case .invalidSenderKey: return "invalidSenderKey"
        case .authenticationFailed: return "authenticationFailed"
        case .invalidPadding: return "invalidPadding"
        case .notJSON: return "notJSON"
        case .noKey: return "noKey"
        case .unusableKey: return "unusableKey"
        case .cryptoUnavailable: return "cryptoUnavailable"
        case .cryptoFailure: return "cryptoFailure"
        }
    }

    /// What went wrong, in a sentence.
    public var description: String {
        switch self {
        case .notBase64URL: return "enc is not base64url"
        case .malformed(let what): return "enc is not one aes128gcm record: \(what)"
        case .invalidSenderKey: return "the sender's key in enc is not a P-256 point"
        case .authenticationFailed:
            return "no key of this device opens it (wrong tag: another device's key, a key past its day, or altered bytes)"
        case .invalidPadding: return "the record's padding is not 0x02 then zeros"
        case .notJSON: return "the decrypted payload is not a JSON object"
        case .noKey:
            return "this device has no private push key it can read (none yet, locked before the first unlock, or no keychain access group)"
        case .unusableKey: return "the private push key in the keychain is not a P-256 key pair"
        case .cryptoUnavailable: return "this platform has no cryptography library"
        case .cryptoFailure(let step): return "the cryptography library failed at \(step)"
        }
    }
}

/// The receiving side of Web Push message encryption (RFC 8291 §3, on RFC 8188's `aes128gcm`
/// content coding), for one record, as the service sends a private push's `enc`:
///
/// `salt (16) ‖ rs (4, big-endian) ‖ idlen (1) = 65 ‖ keyid = the sender's ephemeral public
/// key (65) ‖ AES-128-GCM(plaintext ‖ 0x02 ‖ zeros) ‖ tag (16)`.
///
/// Every primitive comes from the platform through ``PNPushCrypto``; this is only the key
/// schedule and the framing, the same on every platform.
struct WebPushDecryptor: Sendable {
    let crypto: PNPushCrypto

    /// Salt, record size, key id length and the 65-byte key id.
    static let headerLength = 86
    static let tagLength = 16
    private static let keyInfoLabel = Array("WebPush: info".utf8) + [0]
    private static let contentKeyInfo = Array("Content-Encoding: aes128gcm".utf8) + [0]
    private static let nonceInfo = Array("Content-Encoding: nonce".utf8) + [0]

    /// The plaintext of `message`, for the device key `keyPair` and its `auth` secret.
    func decrypt(_ message: [UInt8], keyPair: PNP256KeyPair, auth: [UInt8]) throws -> [UInt8] {
        guard message.count >= Self.headerLength else {
            throw PNPrivatePushFailure.malformed("\(message.count) bytes, shorter than the \(Self.headerLength)-byte header")
        }
        let salt = Array(message[0..<16])
        let recordSize = message[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let keyIdLength = Int(message[20])
        guard keyIdLength == 65 else { throw PNPrivatePushFailure.malformed("the key id is \(keyIdLength) bytes, not 65") }
        guard recordSize >= 18 else { throw PNPrivatePushFailure.malformed("record size \(recordSize) is below 18") }
        let sealedCount = message.count - Self.headerLength
        guard sealedCount >= 1 + Self.tagLength else {
            throw PNPrivatePushFailure.malformed("truncated: no room for a delimiter and a tag")
        }
        guard sealedCount <= recordSize else { throw PNPrivatePushFailure.malformed("more than one record") }
        let senderKey = Array(message[21..<Self.headerLength])
        guard senderKey[0] == 0x04 else { throw PNPrivatePushFailure.invalidSenderKey }

        let padded: [UInt8]
        do {
            let shared = try crypto.sharedSecret(keyPair, peerPublicKey: senderKey)
            // RFC 8291 §3.3: IKM = HKDF(salt: auth, IKM: ECDH, info: "WebPush: info" ‖ 0 ‖ ua_public ‖ as_public, 32).
            let ikm = try crypto.hkdfSHA256(
                inputKeyMaterial: shared, salt: auth, info: Self.keyInfoLabel + keyPair.publicKey + senderKey, outputByteCount: 32)
            // RFC 8188 §2.2 and §2.3: the content-encryption key and the nonce, from the record's salt.
            let key = try crypto.hkdfSHA256(inputKeyMaterial: ikm, salt: salt, info: Self.contentKeyInfo, outputByteCount: 16)
            let nonce = try crypto.hkdfSHA256(inputKeyMaterial: ikm, salt: salt, info: Self.nonceInfo, outputByteCount: 12)
            padded = try crypto.openAES128GCM(key: key, nonce: nonce, ciphertextAndTag: Array(message[Self.headerLength...]))
        } catch {
            throw Self.failure(for: error)
        }
        // RFC 8188 §2: the plaintext, the delimiter (0x02 in the last record), then zeros.
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }), padded[delimiter] == 2 else {
            throw PNPrivatePushFailure.invalidPadding
        }
        return Array(padded[..<delimiter])
    }

    /// What a crypto port error means for a push.
    private static func failure(for error: Error) -> PNPrivatePushFailure {
        switch error as? PNPushCryptoError {
        case .invalidPublicKey?: return .invalidSenderKey
        case .invalidPrivateKey?: return .unusableKey
        case .authenticationFailed?: return .authenticationFailed
        case .unavailable?: return .cryptoUnavailable
        case .failure(let step)?: return .cryptoFailure(step)
        case nil: return .cryptoFailure("\(type(of: error))")
        }
    }
}
