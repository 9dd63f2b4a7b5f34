import CCrypto
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
        let nonce = Crypto.randomBytes(12)
        let aad = Data(context.utf8)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: 16)
        guard let ctx = EVP_CIPHER_CTX_new() else { throw SecretBoxError.failed }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var length: Int32 = 0
        var total = 0
        let ok: Bool = key.withUnsafeBytes { keyBytes in
            nonce.withUnsafeBytes { nonceBytes in
                aad.withUnsafeBytes { aadBytes in
                    plaintext.withUnsafeBytes { plainBytes in
                        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1,
                            ccrypto_gcm_set_iv_length(ctx, 12) == 1,
                            EVP_EncryptInit_ex(ctx, nil, nil, keyBytes.uint8, nonceBytes.uint8) == 1,
                            EVP_EncryptUpdate(ctx, nil, &length, aadBytes.uint8, Int32(aadBytes.count)) == 1,
                            EVP_EncryptUpdate(ctx, &ciphertext, &length, plainBytes.uint8, Int32(plainBytes.count)) == 1
                        else { return false }
                        total = Int(length)
                        let finished = ciphertext.withUnsafeMutableBufferPointer { buffer in
                            EVP_EncryptFinal_ex(ctx, buffer.baseAddress! + total, &length)
                        }
                        guard finished == 1 else { return false }
                        total += Int(length)
                        return ccrypto_gcm_get_tag(ctx, &tag, 16) == 1
                    }
                }
            }
        }
        guard ok else { throw SecretBoxError.failed }
        return Data([1]) + nonce + Data(ciphertext.prefix(total)) + Data(tag)
    }

    /// Decrypts a sealed value; throws when the key, context or bytes do not match.
    public func open(_ sealed: Data, context: String) throws -> Data {
        let bytes = [UInt8](sealed)
        guard bytes.count >= 1 + 12 + 16, bytes[0] == 1 else { throw SecretBoxError.malformed }
        let nonce = Array(bytes[1..<13])
        let body = Array(bytes[13..<(bytes.count - 16)])
        var tag = Array(bytes[(bytes.count - 16)...])
        let aad = [UInt8](context.utf8)
        var plaintext = [UInt8](repeating: 0, count: body.count + 16)
        guard let ctx = EVP_CIPHER_CTX_new() else { throw SecretBoxError.failed }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var length: Int32 = 0
        var total = 0
        let ok: Bool = key.withUnsafeBytes { keyBytes in
            guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1,
                ccrypto_gcm_set_iv_length(ctx, 12) == 1,
                EVP_DecryptInit_ex(ctx, nil, nil, keyBytes.uint8, nonce) == 1,
                EVP_DecryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1,
                EVP_DecryptUpdate(ctx, &plaintext, &length, body, Int32(body.count)) == 1
            else { return false }
            total = Int(length)
            guard ccrypto_gcm_set_tag(ctx, &tag, 16) == 1 else { return false }
            let finished = plaintext.withUnsafeMutableBufferPointer { buffer in
                EVP_DecryptFinal_ex(ctx, buffer.baseAddress! + total, &length)
            }
            guard finished == 1 else { return false }
            total += Int(length)
            return true
        }
        guard ok else { throw SecretBoxError.authenticationFailed }
        return Data(plaintext.prefix(total))
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

extension UnsafeRawBufferPointer {
    var uint8: UnsafePointer<UInt8>? {
        baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}
