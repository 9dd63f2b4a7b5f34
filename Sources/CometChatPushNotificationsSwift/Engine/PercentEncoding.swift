import Foundation

/// Percent-encoding of the SDK's request paths and file names: every UTF-8 byte outside a set
/// of kept ASCII characters becomes `%XX` (uppercase hex). The SDK's one percent-encoder.
@_spi(PNProducts)
public enum PNPercentEncoding {
    /// One segment of a client API path (a uid, a group id, a message, push or session id):
    /// ASCII letters and digits and `-._~@` stay; everything else, `/` included, is encoded, so
    /// that an id can never reach another route.
    public static func pathSegment(_ text: String) -> String {
        encode(text) { isASCIILetterOrDigit($0) || unreservedPunctuation.contains($0) }
    }

    /// `text` with every UTF-8 byte that `keep` refuses as `%XX`.
    public static func encode(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keep(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + PNHex.string(CollectionOfOne(byte), uppercase: true)
            }
        }
        return out
    }

    /// Whether `byte` is an ASCII letter or digit.
    public static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return false
        }
    }

    /// The punctuation a path segment keeps: RFC 3986's unreserved marks and `@`.
    private static let unreservedPunctuation = Set("-._~@".utf8)
}
