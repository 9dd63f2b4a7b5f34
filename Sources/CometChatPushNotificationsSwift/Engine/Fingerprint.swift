import Foundation

/// A short, non-reversible label for a secret or a token, for diagnostics and logs:
/// FNV-1a over the UTF-8 bytes, 8 hex digits, and the length. Never the value itself.
enum Fingerprint {
    static func of(_ value: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in value.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash & 0xffff_ffff, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex + "/\(value.utf8.count)"
    }
}

extension Data {
    /// The bytes as lowercase hex, as the client API expects APNs and VoIP tokens.
    var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
