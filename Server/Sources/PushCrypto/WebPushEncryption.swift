import CCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a Web Push key was refused or a message could not be encrypted or decrypted. The cases
/// name the field at fault and never carry key material.
public enum WebPushError: Error, Equatable, Sendable {
    /// `p256dh` is not a P-256 public key in the 65-byte uncompressed form (0x04 ‖ x ‖ y) with
    /// the point on the curve; the text says which (length, form, or point).
    case invalidP256DH(String)
    /// `auth` is not exactly 16 bytes; the associated value is the length received.
    case invalidAuth(length: Int)
    /// A base64url field did not decode; the associated value names the field.
    case invalidBase64URL(field: String)
    /// A private key's scalar is not 32 bytes in [1, n-1].
    case invalidPrivateKey
    /// The plaintext is longer than `WebPushEncryption.maximumPlaintextLength`.
    case plaintextTooLarge(length: Int)
    /// The encrypted message is shorter than its header says, or its header is not a single
    /// `aes128gcm` record as RFC 8291 sends it; the text says what is wrong.
    case malformedMessage(String)
    /// The tag did not verify: a key or auth secret from another device, or altered bytes.
    case authenticationFailed
    /// The record decrypted but its padding is not that of a single, last record (0x02, then
    /// zeros).
    case invalidPadding
    /// OpenSSL failed where valid input cannot fail (no memory, no entropy).
    case openSSLFailure(String)
}

/// A P-256 key pair for ECDH: a device's key (what the SDK keeps in the keychain; here to
/// decrypt in tests and round trips). The service's ephemeral key of a message never leaves
/// `ccrypto_p256_ephemeral_ecdh`.
///
/// `@unchecked Sendable`: the wrapped `EVP_PKEY` is never mutated after creation, and OpenSSL 3
/// allows concurrent derivations with one key when each call has its own context.
public final class P256KeyAgreementKey: @unchecked Sendable {
    let pkey: OpaquePointer
    /// The public key, 65 bytes uncompressed (0x04 ‖ x ‖ y): a device's `p256dh`, or the
    /// `keyid` of an encrypted message.
    public let publicKey: [UInt8]

    /// Generates a new key pair.
    /// - Throws: `WebPushError.openSSLFailure` when OpenSSL cannot generate a key.
    public convenience init() throws(WebPushError) {
        guard let pkey = ccrypto_p256_generate(OpenSSLObjects.p256Parameters) else { throw .openSSLFailure("P-256 key generation") }
        try self.init(taking: pkey)
    }

    /// Imports a key pair from its 32-byte big-endian private scalar (the form RFC 8291's test
    /// vector gives).
    /// - Throws: `WebPushError.invalidPrivateKey` when the scalar is not 32 bytes in [1, n-1].
    public convenience init(privateScalar: [UInt8]) throws(WebPushError) {
        guard privateScalar.count == 32, let pkey = ccrypto_p256_private_key(privateScalar, privateScalar.count) else {
            throw .invalidPrivateKey
        }
        try self.init(taking: pkey)
    }

    private init(taking pkey: OpaquePointer) throws(WebPushError) {
        var octets = [UInt8](repeating: 0, count: 65)
        guard ccrypto_p256_public_octets(pkey, &octets) == 65 else {
            EVP_PKEY_free(pkey)
            throw .openSSLFailure("P-256 public key export")
        }
        self.pkey = pkey
        self.publicKey = octets
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The ECDH shared secret (the x coordinate, 32 bytes) with a peer's public key. The peer
    /// was checked when it was decoded (`P256PublicKey`); its `EVP_PKEY` is made here, where
    /// only the device's side (decryption) needs one.
    func sharedSecret(with peer: P256PublicKey) throws(WebPushError) -> [UInt8] {
        guard let peerKey = ccrypto_p256_public_key(OpenSSLObjects.p256Parameters, peer.octets, peer.octets.count) else {
            throw .invalidP256DH("not a point on P-256")
        }
        defer { EVP_PKEY_free(peerKey) }
        guard let ctx = EVP_PKEY_CTX_new(pkey, nil) else { throw .openSSLFailure("ECDH context") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var length = 0
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer_ex(ctx, peerKey, 0) == 1,
            EVP_PKEY_derive(ctx, nil, &length) == 1, length == 32
        else {
            ERR_clear_error()
            throw .openSSLFailure("ECDH")
        }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(ctx, &secret, &length) == 1, length == 32 else {
            ERR_clear_error()
            throw .openSSLFailure("ECDH")
        }
        return secret
    }
}

/// A P-256 public key decoded and checked by OpenSSL (`EC_POINT_oct2point`: on the curve,
/// coordinates below the field prime; a 65-byte uncompressed point is never the point at
/// infinity), as the point the sender's arithmetic uses (`ccrypto_p256_ephemeral_ecdh`). It
/// is decoded once per device key, and no `EVP_PKEY` is made for it: a private push's sender
/// side needs none.
final class P256PublicKey: @unchecked Sendable {
    // `@unchecked Sendable`: the wrapped `EC_POINT` is never mutated after decoding.
    let point: OpaquePointer
    /// The 65 bytes it was decoded from.
    let octets: [UInt8]

    /// Parses a 65-byte uncompressed point.
    init(uncompressed point: [UInt8]) throws(WebPushError) {
        guard point.count == 65 else {
            throw .invalidP256DH("must be 65 bytes, got \(point.count)")
        }
        guard point[0] == 0x04 else { throw .invalidP256DH("must be an uncompressed point (0x04 first)") }
        guard let decoded = ccrypto_p256_point(OpenSSLObjects.p256Group, point, point.count) else {
            throw .invalidP256DH("not a point on P-256")
        }
        self.point = decoded
        self.octets = point
    }

    deinit { EC_POINT_free(point) }
}

/// A device's Web Push keys as it registers them (`"encryption": {"p256dh", "auth"}`): its
/// P-256 public key and its 16-byte auth secret. Creating one validates both, so a value of
/// this type can always be encrypted for.
public struct WebPushKeys: Sendable, Equatable {
    /// The device's public key, 65 bytes uncompressed, a point on P-256.
    public let p256dh: [UInt8]
    /// The device's auth secret, 16 bytes.
    public let auth: [UInt8]
    /// The public key as imported and checked here, once: each encryption with these keys
    /// uses it.
    let device: P256PublicKey

    /// Validates raw keys.
    /// - Throws: `WebPushError.invalidP256DH` or `WebPushError.invalidAuth`.
    public init(p256dh: [UInt8], auth: [UInt8]) throws(WebPushError) {
        device = try P256PublicKey(uncompressed: p256dh)
        guard auth.count == 16 else { throw .invalidAuth(length: auth.count) }
        self.p256dh = p256dh
        self.auth = auth
    }

    /// Equal keys: the same public key and auth secret.
    public static func == (lhs: WebPushKeys, rhs: WebPushKeys) -> Bool { lhs.p256dh == rhs.p256dh && lhs.auth == rhs.auth }

    /// Validates keys in their registration form: base64url (padding optional).
    /// - Throws: `WebPushError.invalidBase64URL`, `.invalidP256DH` or `.invalidAuth`.
    public init(p256dh: String, auth: String) throws(WebPushError) {
        guard let key = Base64URL.decode(p256dh) else { throw .invalidBase64URL(field: "p256dh") }
        guard let secret = Base64URL.decode(auth) else { throw .invalidBase64URL(field: "auth") }
        try self.init(p256dh: key, auth: secret)
    }
}

/// Web Push message encryption (RFC 8291) in RFC 8188's `aes128gcm` content coding, one record:
/// what the service puts, base64url, in a private push's `enc` key. Every primitive (P-256
/// ECDH, HKDF-SHA-256, AES-128-GCM, random bytes) is OpenSSL's.
///
/// A message is `salt (16) ‖ rs (4, big-endian) ‖ idlen (1) = 65 ‖ keyid = the ephemeral
/// public key (65) ‖ AES-128-GCM(plaintext ‖ 0x02) ‖ tag (16)`.
public enum WebPushEncryption {
    /// The record size written in every header, as in RFC 8291's example: one record holds up
    /// to `maximumPlaintextLength` bytes.
    public static let recordSize: UInt32 = 4_096
    /// The header's length: salt, record size, key id length and the 65-byte key id.
    public static let headerLength = 86
    /// What a message adds to its plaintext: the header, the padding delimiter and the tag
    /// (86 + 1 + 16).
    public static let overhead = headerLength + 1 + AESGCM.tagLength
    /// The longest plaintext one record carries (RFC 8291 §4): 4,096 − 86 − 1 − 16 = 3,993
    /// bytes.
    public static let maximumPlaintextLength = Int(recordSize) - overhead

    private static let keyInfoLabel = Array("WebPush: info".utf8) + [0]
    private static let cekInfo = Array("Content-Encoding: aes128gcm".utf8) + [0]
    private static let nonceInfo = Array("Content-Encoding: nonce".utf8) + [0]

    /// Encrypts `plaintext` for one device with a fresh ephemeral key and a random salt.
    /// - Returns: the message (header, ciphertext and tag): `overhead` bytes more than the
    ///   plaintext.
    /// - Throws: `WebPushError.plaintextTooLarge`, or `.openSSLFailure`.
    public static func encrypt(_ plaintext: [UInt8], for keys: WebPushKeys) throws(WebPushError) -> [UInt8] {
        try encrypt(plaintext, for: keys, ephemeralScalar: nil, salt: Array(Crypto.randomBytes(saltLength)))
    }

    /// The length of a message's salt.
    public static let saltLength = 16

    /// Encrypts `plaintext` for one device with a fresh ephemeral key and `salt`: ``saltLength``
    /// bytes from a cryptographic random generator, never used for another message. A sender
    /// that seals many messages at once draws all their salts in one call (``Salts``).
    /// - Throws: `WebPushError.plaintextTooLarge`, or `.openSSLFailure`.
    public static func encrypt(_ plaintext: [UInt8], for keys: WebPushKeys, salt: ArraySlice<UInt8>) throws(WebPushError) -> [UInt8] {
        try encrypt(plaintext, for: keys, ephemeralScalar: nil, salt: Array(salt))
    }

    /// The salts of a batch of messages, drawn from OpenSSL's random generator in one call (a
    /// call per message cost about 3.5 µs here: the generator's lock and fork check). Each
    /// ``next()`` gives bytes no other call gives.
    public struct Salts {
        private let bytes: [UInt8]
        private var used = 0

        /// Salts for `count` messages.
        public init(count: Int) {
            bytes = Array(Crypto.randomBytes(max(0, count) * WebPushEncryption.saltLength))
        }

        /// The next unused salt; a fresh one when all were used.
        public mutating func next() -> ArraySlice<UInt8> {
            guard used + WebPushEncryption.saltLength <= bytes.count else {
                return ArraySlice(Crypto.randomBytes(WebPushEncryption.saltLength))
            }
            defer { used += WebPushEncryption.saltLength }
            return bytes[used..<used + WebPushEncryption.saltLength]
        }
    }

    /// Encrypts with a given ephemeral private scalar (32 bytes, big-endian) and salt: for RFC
    /// 8291's test vector, through the same code as every message. Never reuse either outside
    /// tests. `nil`: a fresh ephemeral key, as ``encrypt(_:for:)``.
    package static func encrypt(
        _ plaintext: [UInt8], for keys: WebPushKeys, ephemeralScalar: [UInt8]?, salt: [UInt8]
    ) throws(WebPushError) -> [UInt8] {
        guard plaintext.count <= maximumPlaintextLength else { throw .plaintextTooLarge(length: plaintext.count) }
        precondition(salt.count == saltLength, "an aes128gcm salt is 16 bytes")
        if let ephemeralScalar, ephemeralScalar.count != 32 { throw .invalidPrivateKey }
        // The ephemeral key pair and the ECDH secret in one call: no EVP_PKEY per message.
        var senderPublic = [UInt8](repeating: 0, count: 65)
        var shared = [UInt8](repeating: 0, count: 32)
        guard
            ccrypto_p256_ephemeral_ecdh(OpenSSLObjects.p256Group, keys.device.point, ephemeralScalar, &senderPublic, &shared) == 1
        else {
            if ephemeralScalar != nil { throw .invalidPrivateKey }
            throw .openSSLFailure("P-256 ephemeral key and ECDH")
        }
        let (key, nonce) = try contentKeys(
            sharedSecret: shared, auth: keys.auth, devicePublic: keys.p256dh, senderPublic: senderPublic, salt: salt)
        guard let sealed = AESGCM.seal(key: key, nonce: nonce, plaintext: plaintext + [2]) else {
            throw .openSSLFailure("AES-128-GCM")
        }
        var message = salt
        message.reserveCapacity(headerLength + sealed.count)
        message += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: recordSize >> $0) }
        message.append(UInt8(senderPublic.count))
        message += senderPublic
        message += sealed
        return message
    }

    /// Decrypts a message with the device's key pair and auth secret: the device's side
    /// (RFC 8291 §3.4), used to test the encryptor and to check round trips.
    /// - Throws: `WebPushError.malformedMessage` (truncated, or not one 65-byte-keyid record),
    ///   `.invalidP256DH` (the keyid is not a point), `.invalidAuth`, `.authenticationFailed`
    ///   (another device's key or secret, a wrong tag, altered bytes), `.invalidPadding`.
    public static func decrypt(
        _ message: [UInt8], with key: P256KeyAgreementKey, auth: [UInt8]
    ) throws(WebPushError)
        -> [UInt8]
    {
        guard auth.count == 16 else { throw .invalidAuth(length: auth.count) }
        guard message.count >= headerLength else {
            throw .malformedMessage("shorter than the \(headerLength)-byte header")
        }
        let salt = Array(message[0..<16])
        let recordSize = message[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let idLength = Int(message[20])
        guard idLength == 65 else { throw .malformedMessage("keyid must be 65 bytes, got \(idLength)") }
        guard recordSize >= 18 else { throw .malformedMessage("record size \(recordSize) is below 18") }
        let sealed = Array(message[headerLength...])
        guard sealed.count >= 1 + AESGCM.tagLength else {
            throw .malformedMessage("ciphertext shorter than a delimiter and a tag")
        }
        guard sealed.count <= Int(recordSize) else {
            throw .malformedMessage("more than one record (\(sealed.count) bytes, record size \(recordSize))")
        }
        let senderPublic = Array(message[21..<headerLength])
        let sender = try P256PublicKey(uncompressed: senderPublic)
        let shared = try key.sharedSecret(with: sender)
        let (cek, nonce) = try contentKeys(
            sharedSecret: shared, auth: auth, devicePublic: key.publicKey, senderPublic: senderPublic, salt: salt)
        guard let padded = AESGCM.open(key: cek, nonce: nonce, sealed: sealed) else { throw .authenticationFailed }
        // RFC 8188 §2: the plaintext, then the delimiter (0x02 for the last record), then zeros.
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }), padded[delimiter] == 2 else {
            throw .invalidPadding
        }
        return Array(padded[..<delimiter])
    }

    /// RFC 8291 §3.3–3.4 then RFC 8188 §2.2–2.3: the content-encryption key and the nonce, as
    /// RFC 8291 §3.4 writes the key schedule, five HMAC-SHA-256 computations (OpenSSL's), each an
    /// HKDF step with one block of output:
    ///
    ///     PRK_key = HMAC(auth_secret, ecdh_secret)                  HKDF-Extract
    ///     IKM     = HMAC(PRK_key, "WebPush: info" ‖ 0 ‖ ua_public ‖ as_public ‖ 1)   HKDF-Expand, 32
    ///     PRK     = HMAC(salt, IKM)                                 HKDF-Extract
    ///     CEK     = HMAC(PRK, "Content-Encoding: aes128gcm" ‖ 0 ‖ 1)[0..<16]      HKDF-Expand, 16
    ///     NONCE   = HMAC(PRK, "Content-Encoding: nonce" ‖ 0 ‖ 1)[0..<12]          HKDF-Expand, 12
    ///
    /// OpenSSL's HKDF (`Crypto.hkdfSHA256`) gives the same bytes (`WebPushEncryptionTests`
    /// checks both against RFC 8291's appendix) but costs three to four times as much per step
    /// in OpenSSL 3.0.
    package static func contentKeys(
        sharedSecret: [UInt8], auth: [UInt8], devicePublic: [UInt8], senderPublic: [UInt8], salt: [UInt8]
    ) throws(WebPushError) -> (key: [UInt8], nonce: [UInt8]) {
        let prkKey = try hmac(key: auth, sharedSecret)
        let ikm = try hmac(key: prkKey, keyInfoLabel + devicePublic + senderPublic, [1])
        let prk = try hmac(key: salt, ikm)
        let key = try hmac(key: prk, cekInfo, [1])
        let nonce = try hmac(key: prk, nonceInfo, [1])
        return (Array(key.prefix(16)), Array(nonce.prefix(12)))
    }

    /// HMAC-SHA-256 of `first` ‖ `second` under `key`.
    private static func hmac(key: [UInt8], _ first: [UInt8], _ second: [UInt8] = []) throws(WebPushError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        guard
            ccrypto_hmac_sha256(OpenSSLObjects.hmacSHA256, key, key.count, first, first.count, second, second.count, &output) == 1
        else { throw .openSSLFailure("HMAC-SHA-256") }
        return output
    }
}
