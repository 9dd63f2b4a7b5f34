import ServerSupport
import CCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hashes, MACs, random bytes and constant-time comparison on OpenSSL libcrypto.
public enum Crypto {
    /// SHA-256 of `data`.
    public static func sha256(_ data: Data) -> Data {
        var digest = [UInt8](repeating: 0, count: 32)
        data.withUnsafeBytes { bytes in
            _ = SHA256(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &digest)
        }
        return Data(digest)
    }

    /// SHA-256 of the UTF-8 text.
    public static func sha256(_ text: String) -> Data {
        sha256(Data(text.utf8))
    }

    /// HMAC-SHA256 of `data` under `key`.
    public static func hmacSHA256(key: Data, data: Data) -> Data {
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                _ = HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                    dataBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), dataBytes.count, &mac, &length)
            }
        }
        return Data(mac.prefix(Int(length)))
    }

    /// HKDF-SHA-256 (RFC 5869, extract and expand) through OpenSSL: `length` bytes from `key`,
    /// `salt` (nil: 32 zero bytes, as RFC 5869 §2.2 defines no salt) and `info`.
    public static func hkdfSHA256(key: Data, salt: Data? = nil, info: Data, length: Int = 32) -> Data {
        let salt = [UInt8](salt ?? Data(count: 32))
        let key = [UInt8](key)
        let info = [UInt8](info)
        var output = [UInt8](repeating: 0, count: length)
        let ok = ccrypto_hkdf_sha256(OpenSSLObjects.hkdf, 0, salt, salt.count, key, key.count, info, info.count, &output, length)
        // OpenSSL fails here only without memory; a key of zeros would be a silent disaster.
        precondition(ok == 1, "HKDF-SHA-256 failed in OpenSSL")
        return Data(output)
    }

    /// `count` cryptographically random bytes.
    public static func randomBytes(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            fatalError("RAND_bytes failed: no entropy")
        }
        return Data(bytes)
    }

    /// A random URL-safe token: `prefix` + 32 random bytes in lowercase hex.
    public static func randomToken(prefix: String = "") -> String {
        prefix + randomBytes(32).hexString
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEquals(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else {
            // Still walk the input so the length check is the only early exit.
            _ = lhs.withUnsafeBytes { bytes in CRYPTO_memcmp(bytes.baseAddress, bytes.baseAddress, bytes.count) }
            return false
        }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }

    /// A new private key as PKCS#8 PEM: RSA 2048 when `rsa`, else P-256 (a `.p8` key); nil
    /// when OpenSSL fails.
    public static func generatePrivateKeyPEM(rsa: Bool) -> String? {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = buffer.withUnsafeMutableBufferPointer { ccrypto_generate_key_pem(rsa ? 1 : 0, $0.baseAddress, $0.count) }
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Compares two strings (UTF-8) in constant time.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        constantTimeEquals(Data(lhs.utf8), Data(rhs.utf8))
    }
}

extension Data {
    /// Parses hex (either case); nil on odd length or a non-hex character.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}
