#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64url without padding (RFC 7515 §2), as JWS segments use it.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url text.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : ($0 == "/" ? "_" : $0) })
    }

    /// Decodes unpadded (or padded) base64url text; `nil` if it is malformed.
    public static func decode(_ text: String) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : ($0 == "_" ? "/" : $0) })
        while standard.count % 4 != 0 { standard.append("=") }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
