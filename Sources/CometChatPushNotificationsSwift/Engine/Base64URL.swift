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

    /// The bytes of base64url `text` (padding optional), or `nil` when it holds anything else
    /// (white space, `+`, `/`, a length no encoding has).
    public static func decode(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        while body.hasSuffix("=") { body.removeLast() }
        guard body.utf8.count % 4 != 1 else { return nil }
        var standard = [UInt8]()
        standard.reserveCapacity(body.utf8.count + 3)
        for byte in body.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(standard)) else { return nil }
        return [UInt8](data)
    }
}
