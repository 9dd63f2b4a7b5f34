import Foundation

/// Base64url (RFC 4648 §5) without padding, as Web Push writes keys and messages. The one
/// encoder of the SDK.
@_spi(PNProducts)
public enum PNBase64URL {
    /// `bytes` in base64url, without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Each byte's value in base64url's alphabet, 0xFF for a byte outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    /// The bytes of base64url `text` (padding optional), or `nil` when it holds anything else
    /// (white space, `+`, `/`, a length no encoding has, bits left over that are not zero).
    /// It runs on every private push (`enc`, a few kilobytes), so it works on the UTF-8 bytes
    /// with a table, never on `Character`s.
    public static func decode(_ text: String) -> [UInt8]? {
        var input = Array(text.utf8)
        while input.last == UInt8(ascii: "=") { input.removeLast() }
        guard input.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits: UInt32 = 0
        let values = Self.values
        for byte in input {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = (accumulator << 6 | UInt32(value)) & 0xFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> bits))
            }
        }
        // The bits left over must be zero: one text per value, as the service decodes.
        guard accumulator & ((1 << bits) - 1) == 0 else { return nil }
        return output
    }
}
