#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The value of a JSON `null`.
///
/// `JSONCodec.parse` returns it for `null`, and `JSONCodec.encode` writes `null` for it (and for
/// `Optional.none`). It takes the place of Foundation's `NSNull`, which `FoundationEssentials` lacks.
public struct JSONNull: Sendable, Hashable {
    /// Creates the null value.
    public init() {}
}

/// Why `JSONCodec` could not parse a document or encode a value.
public struct JSONCodecError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for example `leading zero in number`.
    public let message: String
    /// The offset, in bytes from the start of the input, where parsing failed; `nil` for encoding errors.
    public let offset: Int?

    init(_ message: String, offset: Int? = nil) {
        self.message = message
        self.offset = offset
    }

    /// The message, with the byte offset when parsing failed.
    public var description: String {
        if let offset { return "JSON parse error at byte \(offset): \(message)" }
        return "JSON encode error: \(message)"
    }
}

/// A small, strict JSON (RFC 8259) parser and encoder working on the same value types as
/// Foundation's `JSONSerialization`, without needing Foundation.
///
/// Parsed values are `[String: Any]`, `[Any]`, `String`, `Bool`, `Int` (integer literals that fit),
/// `Double` (every other number) and ``JSONNull``.
public enum JSONCodec {
    /// Parses one JSON document (any value, not only objects and arrays).
    ///
    /// The parser is strict: it rejects leading zeros, `+`, a bare `.`, `NaN` and `Infinity`, numbers
    /// outside `Double`'s range, invalid UTF-8, raw control characters in strings, lone surrogates in
    /// `\u` escapes, trailing commas, a byte order mark and anything but whitespace after the value.
    /// When an object repeats a key, the last value wins. It does not recurse, so hostile nesting
    /// cannot overflow the stack.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 encoded document.
    ///   - maxDepth: How many objects and arrays may be nested (`[[1]]` is 2 deep); deeper input fails.
    /// - Returns: `[String: Any]`, `[Any]`, `String`, `Bool`, `Int`, `Double` or ``JSONNull``.
    /// - Throws: ``JSONCodecError`` with the byte offset of the problem.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 64) throws(JSONCodecError) -> Any {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONCodecError) -> Any in
                var parser = Parser(bytes: buffer, maxDepth: maxDepth)
                return try parser.parseDocument()
            }
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONCodecError) -> Any in
                var parser = Parser(bytes: buffer, maxDepth: maxDepth)
                return try parser.parseDocument()
            }
        }.get()
    }

    /// Encodes a value as compact JSON (no whitespace).
    ///
    /// Accepted: `[String: Any]` (and any `[String: T]`), `[Any]` (and any `[T]`), `String`, `Bool`,
    /// every standard integer type, finite `Double` and `Float`, ``JSONNull``, and `Optional`
    /// (`nil` is written as `null`). Integral floating-point values below 2^53 in magnitude are written
    /// without a fraction (`2`), other numbers in Swift's shortest round-trip form. Strings escape `"`,
    /// `\` and control characters only; `/` and non-ASCII characters are written as they are (UTF-8).
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - sortedKeys: Whether object keys are written in the order of their UTF-8 bytes, which makes
    ///     the output deterministic. Otherwise they come in the dictionary's order.
    /// - Returns: The UTF-8 encoded JSON.
    /// - Throws: ``JSONCodecError`` naming the type of the first value that cannot be encoded (for
    ///   example `Date`, `Data` or a custom type), or the non-finite number.
    public static func encode(_ value: Any, sortedKeys: Bool = true) throws(JSONCodecError) -> [UInt8] {
        var encoder = Encoder(sortedKeys: sortedKeys)
        try encoder.encode(value)
        return encoder.output
    }

    /// Encodes a value as compact JSON, like ``encode(_:sortedKeys:)``, returning `Data`.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - sortedKeys: Whether object keys are written in the order of their UTF-8 bytes.
    /// - Returns: The UTF-8 encoded JSON.
    /// - Throws: ``JSONCodecError`` naming the type of the first value that cannot be encoded.
    public static func encodeData(_ value: Any, sortedKeys: Bool = true) throws(JSONCodecError) -> Data {
        Data(try encode(value, sortedKeys: sortedKeys))
    }
}

extension JSONCodec {
    /// The ASCII bytes the codec looks at.
    enum Byte {
        static let quote = UInt8(ascii: "\"")
        static let backslash = UInt8(ascii: "\\")
        static let slash = UInt8(ascii: "/")
        static let openBrace = UInt8(ascii: "{")
        static let closeBrace = UInt8(ascii: "}")
        static let openBracket = UInt8(ascii: "[")
        static let closeBracket = UInt8(ascii: "]")
        static let colon = UInt8(ascii: ":")
        static let comma = UInt8(ascii: ",")
        static let minus = UInt8(ascii: "-")
        static let plus = UInt8(ascii: "+")
        static let dot = UInt8(ascii: ".")
        static let zero = UInt8(ascii: "0")
        static let nine = UInt8(ascii: "9")
        static let space = UInt8(ascii: " ")
        static let tab = UInt8(ascii: "\t")
        static let newline = UInt8(ascii: "\n")
        static let carriageReturn = UInt8(ascii: "\r")
        static let lowercaseE = UInt8(ascii: "e")
        static let lowercaseU = UInt8(ascii: "u")
        static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    }
}
