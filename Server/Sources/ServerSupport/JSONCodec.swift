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

// MARK: - Bytes

/// The ASCII bytes the codec looks at.
private enum Byte {
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

// MARK: - Parser

/// An iterative parser over a contiguous buffer: finished values wait on a value stack (and object
/// keys on a key stack) until their container closes, so nesting costs heap, never stack.
private struct Parser {
    /// An open object or array.
    struct Frame {
        /// Whether it is an object (else an array).
        var isObject: Bool
        /// Where its values start on the value stack.
        var valueStart: Int
        /// Where its keys start on the key stack (objects only).
        var keyStart: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let end: Int
    let maxDepth: Int
    var index = 0
    /// Reused for strings with escapes.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.end = bytes.count
        self.maxDepth = maxDepth
    }

    func fail(_ message: String, at offset: Int) -> JSONCodecError {
        JSONCodecError(message, offset: offset)
    }

    func unexpected(_ expected: String) -> JSONCodecError {
        if index >= end { return fail("unexpected end of input, expected \(expected)", at: index) }
        return fail("unexpected \(describe(bytes[index])), expected \(expected)", at: index)
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (byte < 0x10 ? "0" + hex : hex)
    }

    mutating func skipWhitespace() {
        while index < end {
            let byte = bytes[index]
            guard byte == Byte.space || byte == Byte.newline || byte == Byte.carriageReturn || byte == Byte.tab else { return }
            index += 1
        }
    }

    mutating func parseDocument() throws(JSONCodecError) -> Any {
        var values: [Any] = []
        var keys: [String] = []
        var frames: [Frame] = []

        nextValue: while true {
            skipWhitespace()
            guard index < end else { throw unexpected("a value") }
            switch bytes[index] {
            case Byte.openBrace:
                guard frames.count < maxDepth else { throw fail("nesting deeper than \(maxDepth) levels", at: index) }
                index += 1
                skipWhitespace()
                if index < end && bytes[index] == Byte.closeBrace {
                    index += 1
                    values.append([String: Any]())
                } else {
                    frames.append(Frame(isObject: true, valueStart: values.count, keyStart: keys.count))
                    keys.append(try parseKey())
                    continue nextValue
                }
            case Byte.openBracket:
                guard frames.count < maxDepth else { throw fail("nesting deeper than \(maxDepth) levels", at: index) }
                index += 1
                skipWhitespace()
                if index < end && bytes[index] == Byte.closeBracket {
                    index += 1
                    values.append([Any]())
                } else {
                    frames.append(Frame(isObject: false, valueStart: values.count, keyStart: keys.count))
                    continue nextValue
                }
            case Byte.quote:
                values.append(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                values.append(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                values.append(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                values.append(JSONNull())
            case Byte.minus, Byte.zero...Byte.nine:
                values.append(try parseNumber())
            default:
                throw unexpected("a value")
            }

            // A value is complete: it continues its container, or closes it (and maybe more).
            while let frame = frames.last {
                skipWhitespace()
                guard index < end else { throw unexpected(frame.isObject ? "',' or '}'" : "',' or ']'") }
                let byte = bytes[index]
                if byte == Byte.comma {
                    index += 1
                    if frame.isObject {
                        skipWhitespace()
                        keys.append(try parseKey())
                    }
                    continue nextValue
                }
                if frame.isObject && byte == Byte.closeBrace {
                    var object = [String: Any](minimumCapacity: values.count - frame.valueStart)
                    for offset in 0..<(values.count - frame.valueStart) {
                        object[keys[frame.keyStart + offset]] = values[frame.valueStart + offset]
                    }
                    values.removeSubrange(frame.valueStart...)
                    keys.removeSubrange(frame.keyStart...)
                    values.append(object)
                } else if !frame.isObject && byte == Byte.closeBracket {
                    let array = Array(values[frame.valueStart...])
                    values.removeSubrange(frame.valueStart...)
                    values.append(array)
                } else {
                    throw unexpected(frame.isObject ? "',' or '}'" : "',' or ']'")
                }
                index += 1
                frames.removeLast()
            }
            break
        }

        skipWhitespace()
        if index < end { throw fail("unexpected \(describe(bytes[index])) after the JSON value", at: index) }
        return values[0]
    }

    /// Parses `"key"` and the `:` after it (with the whitespace around it).
    mutating func parseKey() throws(JSONCodecError) -> String {
        guard index < end && bytes[index] == Byte.quote else { throw unexpected("a string key") }
        let key = try parseString()
        skipWhitespace()
        guard index < end && bytes[index] == Byte.colon else { throw unexpected("':' after an object key") }
        index += 1
        return key
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONCodecError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            guard end - start >= count else { return false }
            for offset in 0..<count where bytes[start + offset] != expected[offset] { return false }
            return true
        }
        guard matches else { throw fail("invalid literal, expected '\(literal)'", at: start) }
        index += count
    }

    func isDigit(at position: Int) -> Bool {
        position < end && bytes[position] >= Byte.zero && bytes[position] <= Byte.nine
    }

    mutating func parseNumber() throws(JSONCodecError) -> Any {
        let start = index
        let negative = bytes[index] == Byte.minus
        if negative { index += 1 }
        guard isDigit(at: index) else { throw unexpected("a digit") }
        let digitsStart = index
        if bytes[index] == Byte.zero {
            index += 1
            if isDigit(at: index) { throw fail("leading zero in number", at: digitsStart) }
        } else {
            while isDigit(at: index) { index += 1 }
        }
        let integerEnd = index
        var isInteger = true
        if index < end && bytes[index] == Byte.dot {
            isInteger = false
            index += 1
            guard isDigit(at: index) else { throw unexpected("a digit after the decimal point") }
            while isDigit(at: index) { index += 1 }
        }
        if index < end && bytes[index] | 0x20 == Byte.lowercaseE {
            isInteger = false
            index += 1
            if index < end && (bytes[index] == Byte.plus || bytes[index] == Byte.minus) { index += 1 }
            guard isDigit(at: index) else { throw unexpected("a digit in the exponent") }
            while isDigit(at: index) { index += 1 }
        }
        if isInteger, let value = integer(from: digitsStart, to: integerEnd, negative: negative) {
            return value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail("number out of range", at: start) }
        return value
    }

    /// The digits as an `Int`, or `nil` when they do not fit.
    func integer(from start: Int, to end: Int, negative: Bool) -> Int? {
        var value = 0
        for position in start..<end {
            let digit = Int(bytes[position] &- Byte.zero)
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflowA || overflowB { return nil }
            value = next
        }
        return value
    }

    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(JSONCodecError) -> String {
        let open = index
        index += 1
        let start = index
        // Fast path: no escapes, so the string is a slice of the input.
        while index < end {
            let byte = bytes[index]
            if byte == Byte.quote {
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return string
            }
            if byte == Byte.backslash { break }
            if byte < 0x20 { throw fail("unescaped control character in string", at: index) }
            index += byte < 0x80 ? 1 : (try utf8SequenceLength(at: index))
        }
        guard index < end else { throw fail("unterminated string", at: open) }

        // Slow path: copy runs of plain bytes and decode the escapes between them.
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while index < end {
            let byte = bytes[index]
            if byte == Byte.quote || byte == Byte.backslash {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                if byte == Byte.quote {
                    index += 1
                    return String(decoding: scratch, as: UTF8.self)
                }
                try parseEscape()
                runStart = index
            } else if byte < 0x20 {
                throw fail("unescaped control character in string", at: index)
            } else {
                index += byte < 0x80 ? 1 : (try utf8SequenceLength(at: index))
            }
        }
        throw fail("unterminated string", at: open)
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    mutating func parseEscape() throws(JSONCodecError) {
        let escapeStart = index
        index += 1
        guard index < end else { throw fail("unterminated string", at: escapeStart) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case Byte.quote, Byte.backslash, Byte.slash: scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case Byte.lowercaseU:
            var scalar = try hexQuad()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard index + 1 < end && bytes[index] == Byte.backslash && bytes[index + 1] == Byte.lowercaseU else {
                    throw fail("high surrogate escape without a low surrogate", at: escapeStart)
                }
                index += 2
                let low = try hexQuad()
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw fail("high surrogate escape without a low surrogate", at: escapeStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw fail("low surrogate escape without a high surrogate", at: escapeStart)
            }
            appendUTF8(scalar)
        default:
            throw fail("invalid escape sequence", at: escapeStart)
        }
    }

    /// The four hex digits of a `\u` escape.
    mutating func hexQuad() throws(JSONCodecError) -> UInt32 {
        guard end - index >= 4 else { throw fail("incomplete \\u escape", at: index) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case Byte.zero...Byte.nine: digit = byte - Byte.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit in \\u escape", at: index)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The length of the well-formed UTF-8 sequence at `position` (a byte of 0x80 or more), after
    /// Unicode's table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF.
    func utf8SequenceLength(at position: Int) throws(JSONCodecError) -> Int {
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch bytes[position] {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: throw fail("invalid UTF-8", at: position)
        }
        guard end - position >= length else { throw fail("invalid UTF-8", at: position) }
        let second = bytes[position + 1]
        guard second >= lower && second <= upper else { throw fail("invalid UTF-8", at: position) }
        for offset in 2..<length where bytes[position + offset] & 0xC0 != 0x80 {
            throw fail("invalid UTF-8", at: position)
        }
        return length
    }
}

// MARK: - Encoder

/// Lets the encoder see through an `Optional` boxed in `Any`.
private protocol JSONCodecOptional {
    /// The wrapped value, or `nil`.
    var jsonCodecWrapped: Any? { get }
}

extension Optional: JSONCodecOptional {
    fileprivate var jsonCodecWrapped: Any? { self.map { $0 } }
}

private struct Encoder {
    let sortedKeys: Bool
    var output: [UInt8] = []

    init(sortedKeys: Bool) {
        self.sortedKeys = sortedKeys
        output.reserveCapacity(256)
    }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { output.append(contentsOf: $0) }
    }

    mutating func encode(_ value: Any) throws(JSONCodecError) {
        // Bool comes before the integers so that it can never be written as a number.
        switch value {
        case let string as String: writeString(string)
        case let bool as Bool: append(bool ? "true" : "false")
        case let int as Int: writeInteger(int)
        case let double as Double: try writeFloatingPoint(double)
        case let object as [String: Any]: try writeObject(object)
        case let array as [Any]:
            output.append(Byte.openBracket)
            for (position, element) in array.enumerated() {
                if position > 0 { output.append(Byte.comma) }
                try encode(element)
            }
            output.append(Byte.closeBracket)
        case is JSONNull: append("null")
        case let optional as any JSONCodecOptional:
            if let wrapped = optional.jsonCodecWrapped { try encode(wrapped) } else { append("null") }
        case let int as Int64: writeInteger(int)
        case let int as Int32: writeInteger(int)
        case let int as Int16: writeInteger(int)
        case let int as Int8: writeInteger(int)
        case let int as UInt: writeInteger(int)
        case let int as UInt64: writeInteger(int)
        case let int as UInt32: writeInteger(int)
        case let int as UInt16: writeInteger(int)
        case let int as UInt8: writeInteger(int)
        case let float as Float: try writeFloatingPoint(float)
        default:
            throw JSONCodecError("cannot encode a value of type \(String(describing: type(of: value)))")
        }
    }

    mutating func writeObject(_ object: [String: Any]) throws(JSONCodecError) {
        output.append(Byte.openBrace)
        if sortedKeys {
            let entries = object.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (position, entry) in entries.enumerated() {
                if position > 0 { output.append(Byte.comma) }
                writeString(entry.key)
                output.append(Byte.colon)
                try encode(entry.value)
            }
        } else {
            var first = true
            for (key, value) in object {
                if !first { output.append(Byte.comma) }
                first = false
                writeString(key)
                output.append(Byte.colon)
                try encode(value)
            }
        }
        output.append(Byte.closeBrace)
    }

    mutating func writeString(_ string: String) {
        output.append(Byte.quote)
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for position in 0..<utf8.count {
                let byte = utf8[position]
                guard byte < 0x20 || byte == Byte.quote || byte == Byte.backslash else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                runStart = position + 1
                output.append(Byte.backslash)
                switch byte {
                case Byte.quote, Byte.backslash: output.append(byte)
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                default:
                    output.append(contentsOf: [Byte.lowercaseU, Byte.zero, Byte.zero])
                    output.append(Byte.hexDigits[Int(byte >> 4)])
                    output.append(Byte.hexDigits[Int(byte & 0xF)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        output.append(Byte.quote)
    }

    mutating func writeInteger<T: FixedWidthInteger>(_ value: T) {
        if value < 0 { output.append(Byte.minus) }
        var magnitude = UInt64(value.magnitude)
        let start = output.count
        repeat {
            output.append(Byte.zero + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude != 0
        output[start...].reverse()
    }

    mutating func writeFloatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ value: T) throws(JSONCodecError) {
        guard value.isFinite else { throw JSONCodecError("cannot encode the non-finite number \(value)") }
        if value == 0 {
            append(value.sign == .minus ? "-0" : "0")
        } else if value.rounded(.towardZero) == value && value.magnitude < 9_007_199_254_740_992 {
            writeInteger(Int64(value))
        } else {
            output.append(contentsOf: value.description.utf8)
        }
    }
}
