import Foundation

/// A short, non-reversible label for a secret or a token, for diagnostics and logs:
/// FNV-1a over the UTF-8 bytes, 8 hex digits, and the length. Never the value itself.
enum Fingerprint {
    static func of(_ value: String) -> String {
        let hex = String(PNFNV1a.hash64(value.utf8) & 0xffff_ffff, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex + "/\(value.utf8.count)"
    }
}

/// FNV-1a, 64 bits: a fast, stable, non-cryptographic hash, for labels and file names (never
/// for secrecy).
@_spi(PNProducts)
public enum PNFNV1a {
    /// The hash of `bytes`.
    public static func hash64(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
