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

    /// Compares two strings (UTF-8) in constant time.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        constantTimeEquals(Data(lhs.utf8), Data(rhs.utf8))
    }
}
