import Foundation

/// Bytes as hexadecimal digits, two a byte: the SDK's one hex encoder.
@_spi(PNProducts)
public enum PNHex {
    /// `bytes` as hex digits: lowercase, as the client API expects APNs and VoIP tokens, or
    /// uppercase, as percent-encoding writes them.
    public static func string(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
