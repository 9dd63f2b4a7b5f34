#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The parser behind `JSONCodec.parse`.

extension JSONCodec {
    /// An iterative parser over a contiguous buffer: finished values wait on a value stack (and object
    /// keys on a key stack) until their container closes, so nesting costs heap, never stack.
    struct Parser {
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
}
