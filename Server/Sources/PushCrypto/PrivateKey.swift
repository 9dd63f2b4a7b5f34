import CCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A private key loaded from PEM (PKCS#8 `BEGIN PRIVATE KEY`, as in an APNs `.p8` file or
/// an FCM service account's `private_key`), usable for ES256 or RS256 signatures.
///
/// `@unchecked Sendable`: the wrapped `EVP_PKEY` is never mutated after loading, and
/// OpenSSL 3 allows concurrent signing with one key when each call has its own context.
public final class PrivateKey: @unchecked Sendable {
    /// The kind of key, which fixes the JWS algorithm it can sign with.
    public enum Kind: Sendable, Equatable {
        /// An elliptic-curve P-256 key (ES256).
        case p256
        /// An RSA key (RS256).
        case rsa
    }

    let pkey: OpaquePointer
    /// The kind of key that was loaded.
    public let kind: Kind

    /// Loads a key from PEM text.
    /// - Throws: `CryptoError.invalidKey` when the text is not a supported private key.
    public init(pem: String) throws {
        let bytes = Array(pem.utf8)
        // BIO_new_mem_buf does not copy: keep the buffer alive for the whole read.
        let loaded: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress,
                let bio = BIO_new_mem_buf(base, Int32(buffer.count))
            else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let pkey = loaded else { throw CryptoError.invalidKey("not a PEM private key") }
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_EC:
            guard EVP_PKEY_get_bits(pkey) == 256 else {
                EVP_PKEY_free(pkey)
                throw CryptoError.invalidKey("EC key is not P-256")
            }
            kind = .p256
        case EVP_PKEY_RSA:
            kind = .rsa
        default:
            EVP_PKEY_free(pkey)
            throw CryptoError.invalidKey("unsupported key type")
        }
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Signs `message` with SHA-256: raw 64-byte r‖s for P-256 keys, PKCS#1 v1.5 for RSA.
    public func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw CryptoError.signingFailed("no digest context") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else {
            throw CryptoError.signingFailed("EVP_DigestSignInit")
        }
        var length = 0
        let signature: [UInt8] = try message.withUnsafeBufferPointer { input in
            guard EVP_DigestSign(ctx, nil, &length, input.baseAddress, input.count) == 1 else {
                throw CryptoError.signingFailed("EVP_DigestSign (size)")
            }
            var output = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(ctx, &output, &length, input.baseAddress, input.count) == 1 else {
                throw CryptoError.signingFailed("EVP_DigestSign")
            }
            return Array(output.prefix(length))
        }
        return kind == .p256 ? try Self.rawECDSA(fromDER: signature) : signature
    }

    /// Converts an ECDSA signature from DER to the JWS form: r and s, 32 bytes each.
    static func rawECDSA(fromDER der: [UInt8]) throws -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let sig = parsed else { throw CryptoError.signingFailed("bad DER signature") }
        defer { ECDSA_SIG_free(sig) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(sig, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { out -> Bool in
            BN_bn2binpad(r, out.baseAddress, 32) == 32 && BN_bn2binpad(s, out.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw CryptoError.signingFailed("BN_bn2binpad") }
        return raw
    }
}

/// Errors from key loading and signing.
public enum CryptoError: Error, Equatable, Sendable {
    /// The key could not be parsed or is of an unsupported type.
    case invalidKey(String)
    /// OpenSSL refused to sign.
    case signingFailed(String)
}
