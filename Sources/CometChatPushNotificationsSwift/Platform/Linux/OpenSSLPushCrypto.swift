#if canImport(CCryptoLinux)
import CCryptoLinux
import Foundation

/// ``PNPushCrypto`` on OpenSSL's libcrypto (Linux): P-256 key generation through `EVP_PKEY`, ECDH
/// on OpenSSL's P-256 arithmetic (`EC_POINT_mul`), HKDF on OpenSSL's HMAC (`EVP_MAC`), AES-128-GCM
/// through `EVP_CIPHER`, SHA-256 through `EVP_Digest`, random bytes from `RAND_bytes`. Converts and
/// forwards only.
struct OpenSSLPushCrypto: PNPushCrypto {
    // Made once per process and shared read-only by every thread (`nonisolated(unsafe)`: never
    // changed, never freed; OpenSSL 3 lets threads use them concurrently, each use with its own
    // context): in OpenSSL 3.0 an algorithm fetch, or building P-256's group, costs more than the
    // work of a decryption step. Nil only when OpenSSL itself is broken; the shim's functions then
    // fail as on any OpenSSL failure.
    nonisolated(unsafe) private static let p256: OpaquePointer? = cclinux_p256_group()
    nonisolated(unsafe) private static let hmacSHA256: OpaquePointer? = cclinux_hmac_sha256_template()
    nonisolated(unsafe) private static let aes128GCM: OpaquePointer? = cclinux_aes128gcm_fetch()

    func generateP256KeyPair() throws -> PNP256KeyPair {
        var scalar = [UInt8](repeating: 0, count: 32)
        var point = [UInt8](repeating: 0, count: 65)
        guard cclinux_p256_generate(&scalar, &point) == 1 else { throw PNPushCryptoError.failure("P-256 key generation") }
        return PNP256KeyPair(privateKey: scalar, publicKey: point)
    }

    func sharedSecret(_ keyPair: PNP256KeyPair, peerPublicKey: [UInt8]) throws -> [UInt8] {
        guard peerPublicKey.count == 65, peerPublicKey[0] == 0x04 else { throw PNPushCryptoError.invalidPublicKey }
        let own = try Self.imported(keyPair)
        var secret = [UInt8](repeating: 0, count: 32)
        switch withExtendedLifetime(own, { cclinux_p256_ecdh(Self.p256, own.scalar, peerPublicKey, &secret) }) {
        case 1: return secret
        case -1: throw PNPushCryptoError.invalidPublicKey
        default: throw PNPushCryptoError.failure("ECDH")
        }
    }

    /// The device's key as OpenSSL's arithmetic takes it (its scalar, after checking the pair).
    /// Every push uses the same key, so the last one imported is kept (threads multiply with one
    /// scalar concurrently, each with its own context).
    private static func imported(_ keyPair: PNP256KeyPair) throws -> ImportedKey {
        if let last = lastImported.current, last.keyPair == keyPair { return last }
        guard keyPair.privateKey.count == 32, keyPair.publicKey.count == 65,
            let scalar = cclinux_p256_scalar(p256, keyPair.privateKey, keyPair.publicKey)
        else { throw PNPushCryptoError.invalidPrivateKey }
        let key = ImportedKey(scalar: scalar, keyPair: keyPair)
        lastImported.withLock { $0 = key }
        return key
    }

    private static let lastImported = PNLocked<ImportedKey?>(nil)

    /// An imported key pair, its scalar cleared and freed with its last reference.
    private final class ImportedKey: @unchecked Sendable {
        // @unchecked: the BIGNUM is never changed after import; OpenSSL only reads a scalar it multiplies by.
        let scalar: OpaquePointer
        let keyPair: PNP256KeyPair
        init(scalar: OpaquePointer, keyPair: PNP256KeyPair) {
            self.scalar = scalar
            self.keyPair = keyPair
        }
        deinit { BN_clear_free(scalar) }
    }

    func hkdfSHA256(
        inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int
    ) throws
        -> [UInt8]
    {
        guard outputByteCount > 0, outputByteCount <= 255 * 32 else { throw PNPushCryptoError.failure("HKDF output length") }
        var out = [UInt8](repeating: 0, count: outputByteCount)
        let ok = cclinux_hkdf_sha256(
            Self.hmacSHA256, salt, salt.count, inputKeyMaterial, inputKeyMaterial.count, info, info.count, &out, outputByteCount)
        guard ok == 1 else { throw PNPushCryptoError.failure("HKDF-SHA-256") }
        return out
    }

    func openAES128GCM(key: [UInt8], nonce: [UInt8], ciphertextAndTag: [UInt8]) throws -> [UInt8] {
        guard key.count == 16, nonce.count == 12 else { throw PNPushCryptoError.failure("AES-128-GCM key or nonce length") }
        guard ciphertextAndTag.count >= 16 else { throw PNPushCryptoError.authenticationFailed }
        // At least one byte, so the buffer has an address even for an empty plaintext.
        var plaintext = [UInt8](repeating: 0, count: max(1, ciphertextAndTag.count - 16))
        switch cclinux_aes128gcm_open(Self.aes128GCM, key, nonce, ciphertextAndTag, ciphertextAndTag.count, &plaintext) {
        case 1: return Array(plaintext.prefix(ciphertextAndTag.count - 16))
        case -1: throw PNPushCryptoError.authenticationFailed
        default: throw PNPushCryptoError.failure("AES-128-GCM")
        }
    }

    func sealAES128GCM(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        guard key.count == 16, nonce.count == 12 else { throw PNPushCryptoError.failure("AES-128-GCM key or nonce length") }
        var sealed = [UInt8](repeating: 0, count: plaintext.count + 16)
        guard cclinux_aes128gcm_seal(Self.aes128GCM, key, nonce, plaintext, plaintext.count, &sealed) == 1 else {
            throw PNPushCryptoError.failure("AES-128-GCM")
        }
        return sealed
    }

    func sha256(_ bytes: [UInt8]) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        guard cclinux_sha256(bytes, bytes.count, &digest) == 1 else { throw PNPushCryptoError.failure("SHA-256") }
        return digest
    }

    func randomBytes(count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard cclinux_random_bytes(&bytes, count) == 1 else { throw PNPushCryptoError.failure("random bytes") }
        return bytes
    }
}
#endif
