import Foundation
import Testing

import PushTestSupport
import ServerSupport

/// `JSONCodec` against hand-written expectations and, as an independent oracle, Foundation's
/// `JSONSerialization` (which the service no longer links, but the tests may).
@Suite("JSON codec")
struct JSONCodecTests {
    // MARK: Helpers

    /// A JSON value in a form that can be compared: strings and keys as their exact UTF-8 bytes,
    /// integral numbers that fit in `Int` as `.int` whatever their type.
    indirect enum Value: Equatable, CustomStringConvertible {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string([UInt8])
        case array([Value])
        case object([[UInt8]: Value])

        var description: String {
            switch self {
            case .null: return "null"
            case .bool(let value): return "\(value)"
            case .int(let value): return "\(value)"
            case .double(let value): return "\(value)"
            case .string(let bytes): return String(decoding: bytes, as: UTF8.self).debugDescription
            case .array(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
            case .object(let members):
                let entries = members.map { String(decoding: $0.key, as: UTF8.self).debugDescription + ":" + $0.value.description }
                return "{" + entries.sorted().joined(separator: ",") + "}"
            }
        }

        /// Equality that lets numbers differ by a few units in the last place (Foundation stores
        /// literals with more than 38 significant digits as a rounded `NSDecimalNumber`).
        func isClose(to other: Value) -> Bool {
            switch (self, other) {
            case (.array(let lhs), .array(let rhs)):
                return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.isClose(to: $1) }
            case (.object(let lhs), .object(let rhs)):
                return lhs.count == rhs.count
                    && lhs.allSatisfy { key, value in rhs[key].map { value.isClose(to: $0) } ?? false }
            case (.int, .int), (.double, _), (_, .double):
                guard let lhs = numericValue, let rhs = other.numericValue else { return false }
                return lhs == rhs || abs(lhs - rhs) <= 1e-12 * max(abs(lhs), abs(rhs))
            default:
                return self == other
            }
        }

        /// The value as Foundation's reader gives it back on Linux: it drops a raw U+FEFF (byte order
        /// mark) at the start of a string or key or right after an escape, a Foundation bug. For
        /// comparisons with Foundation, all of them go.
        var withoutByteOrderMarks: Value {
            func strip(_ bytes: [UInt8]) -> [UInt8] {
                var result: [UInt8] = []
                var position = 0
                while position < bytes.count {
                    if bytes[position...].starts(with: [0xEF, 0xBB, 0xBF]) {
                        position += 3
                    } else {
                        result.append(bytes[position])
                        position += 1
                    }
                }
                return result
            }
            switch self {
            case .string(let bytes): return .string(strip(bytes))
            case .array(let values): return .array(values.map(\.withoutByteOrderMarks))
            case .object(let members):
                return .object(Dictionary(members.map { (strip($0.key), $0.value.withoutByteOrderMarks) }) { $1 })
            default: return self
            }
        }

        var numericValue: Double? {
            switch self {
            case .int(let value): return Double(value)
            case .double(let value): return value
            default: return nil
            }
        }

        static func numeric(_ value: Double) -> Value {
            if let int = Int(exactly: value) { return .int(int) }
            return .double(value)
        }
    }

    /// Normalises what `JSONCodec` or `JSONSerialization` produced (or what a test built).
    static func value(_ any: Any) -> Value? {
        let dynamicType = type(of: any)
        if dynamicType == Bool.self { return .bool(any as! Bool) }
        if dynamicType == Int.self { return .int(any as! Int) }
        if dynamicType == Double.self { return .numeric(any as! Double) }
        if dynamicType == String.self { return .string(Array((any as! String).utf8)) }
        if any is JSONNull || any is NSNull { return .null }
        if let decimal = any as? NSDecimalNumber {  // Foundation's integers beyond Int64's range, some doubles
            let text = decimal.stringValue
            return Int(text).map(Value.int) ?? Double(text).map(Value.numeric)
        }
        if let number = any as? NSNumber {  // Foundation's numbers and booleans
            switch String(cString: number.objCType) {
            case "c": return .bool(number.boolValue)
            case "d", "f": return .numeric(number.doubleValue)
            case "Q", "L", "I", "S", "C":
                return Int(exactly: number.uint64Value).map(Value.int) ?? .double(Double(number.uint64Value))
            default: return .int(number.intValue)
            }
        }
        if let string = any as? String { return .string(Array(string.utf8)) }
        if let object = any as? [String: Any] {
            var members: [[UInt8]: Value] = [:]
            for (key, member) in object {
                guard let member = value(member) else { return nil }
                members[Array(key.utf8)] = member
            }
            return .object(members)
        }
        if let array = any as? [Any] {
            var values: [Value] = []
            for element in array {
                guard let element = value(element) else { return nil }
                values.append(element)
            }
            return .array(values)
        }
        return nil
    }

    static func parse(_ text: String, maxDepth: Int = 64) throws(JSONCodecError) -> Any {
        try JSONCodec.parse(Array(text.utf8), maxDepth: maxDepth)
    }

    static func encoded(_ value: Any, sortedKeys: Bool = true) throws(JSONCodecError) -> String {
        String(decoding: try JSONCodec.encode(value, sortedKeys: sortedKeys), as: UTF8.self)
    }

    /// What `JSONSerialization` makes of the bytes (fragments allowed), or `nil` when it rejects them.
    static func foundationParse(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// Replaces `JSONNull` with `NSNull` so that `JSONSerialization` can write the value.
    static func foundationValue(_ any: Any) -> Any {
        if any is JSONNull { return NSNull() }
        if let object = any as? [String: Any] { return object.mapValues(foundationValue) }
        if let array = any as? [Any] { return array.map(foundationValue) }
        return any
    }

    /// Random text; keys get no U+FEFF, so that dropping those for Foundation cannot merge two keys.
    static func randomString(_ rng: inout SeededGenerator, maxLength: Int = 12, isKey: Bool = false) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxLength, using: &rng) {
            let code: UInt32
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: code = UInt32.random(in: 0..<0x20, using: &rng)  // control characters
            case 1: code = [0x22, 0x5C, 0x2F, 0x7F, 0x2028, 0x2029, isKey ? 0x2060 : 0xFEFF, 0xFFFF].randomElement(using: &rng)!
            case 2: code = UInt32.random(in: 0x80..<0x800, using: &rng)
            case 3: code = UInt32.random(in: 0x800..<0xD800, using: &rng)
            case 4: code = UInt32.random(in: 0x10000...0x10FFFF, using: &rng)
            default: code = UInt32.random(in: 0x20..<0x7F, using: &rng)
            }
            scalars.append(Unicode.Scalar(code)!)
        }
        return String(scalars)
    }

    static func randomDouble(_ rng: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return Double(Int.random(in: -100_000...100_000, using: &rng)) / 100
        case 1: return Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &rng))
        case 2: return Double.random(in: -1...1, using: &rng) * pow(10, Double(Int.random(in: -300...300, using: &rng)))
        case 3:
            return [0.1, 1.0 / 3, 2.0, 1e16, 1e-7, 9_007_199_254_740_994, .leastNonzeroMagnitude, Double.greatestFiniteMagnitude]
                .randomElement(using: &rng)!
        default:
            while true {  // any finite bit pattern, subnormals included
                let value = Double(bitPattern: rng.next())
                if value.isFinite { return value }
            }
        }
    }

    static func randomDocument(_ rng: inout SeededGenerator, depth: Int = 0) -> Any {
        let containers = depth < 5
        switch Int.random(in: 0..<(containers ? 10 : 7), using: &rng) {
        case 0: return JSONNull()
        case 1: return Bool.random(using: &rng)
        case 2: return Int.random(in: -1_000...1_000, using: &rng)
        case 3: return Int.random(in: Int.min...Int.max, using: &rng)
        case 4: return randomDouble(&rng)
        case 5, 6: return randomString(&rng)
        case 7:
            return (0..<Int.random(in: 0...6, using: &rng)).map { _ in randomDocument(&rng, depth: depth + 1) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                object[randomString(&rng, maxLength: 6, isKey: true)] = randomDocument(&rng, depth: depth + 1)
            }
            return object
        }
    }

    static func mutate(_ input: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        let interesting: [UInt8] = Array(#"{}[]",:\"-+.eE0159u tfn"#.utf8) + [0x00, 0x0A, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xED, 0xF4, 0xFF]
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] ^= UInt8.random(in: 1...255, using: &rng)
            case 1 where !bytes.isEmpty: bytes[position] = interesting.randomElement(using: &rng)!
            case 2: bytes.insert(interesting.randomElement(using: &rng)!, at: position)
            case 3 where !bytes.isEmpty: bytes.remove(at: position)
            case 4: bytes = Array(bytes.prefix(position))
            default:
                let end = min(bytes.count, position + Int.random(in: 1...8, using: &rng))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            }
        }
        return bytes
    }

    // MARK: Round trips

    @Test("A nested document encodes compactly with sorted keys and parses back")
    func nestedRoundTrip() throws {
        let document: [String: Any] = [
            "b": [1, 2.5, "x", true, false, JSONNull(), [String: Any](), [Any]()] as [Any],
            "a": ["z": ["deep": [[[-7]]]], "y": "ü/\u{1F600}"] as [String: Any],
            "": JSONNull(),
        ]
        let text = try Self.encoded(document)
        #expect(text == #"{"":null,"a":{"y":"ü/😀","z":{"deep":[[[-7]]]}},"b":[1,2.5,"x",true,false,null,{},[]]}"#)
        let parsed = try JSONCodec.parse(Array(text.utf8))
        #expect(Self.value(parsed) == Self.value(document))
        let object = try #require(parsed as? [String: Any])
        let list = try #require(object["b"] as? [Any])
        #expect(list[0] as? Int == 1)
        #expect(list[1] as? Double == 2.5)
        #expect(list[3] as? Bool == true)
        #expect(list[5] is JSONNull)
        #expect(((object["a"] as? [String: Any])?["z"] as? [String: Any])?["deep"] is [Any])
        // Foundation reads the same document.
        #expect(Self.value(try #require(Self.foundationParse(Array(text.utf8)))) == Self.value(document))
    }

    @Test("Whitespace around and inside the document is allowed; every input collection works")
    func whitespaceAndInputs() throws {
        let text = " \t\r\n{ \"a\" :\n[ 1 , 2 ]\t, \"b\" : { } } \n"
        let expected = Self.value(["a": [1, 2], "b": [String: Any]()] as [String: Any])
        #expect(Self.value(try JSONCodec.parse(Array(text.utf8))) == expected)
        #expect(Self.value(try JSONCodec.parse(Data(text.utf8))) == expected)
        #expect(Self.value(try JSONCodec.parse(text.utf8)) == expected)
        #expect(Self.value(try JSONCodec.parse(Array(text.utf8)[...])) == expected)
        // A collection without contiguous storage is copied once.
        #expect(Self.value(try JSONCodec.parse(text.utf8.lazy.map { $0 })) == expected)
        #expect(Self.value(try JSONCodec.parse(AnyCollection(Array(text.utf8)))) == expected)
        // Top-level scalars.
        #expect(try Self.parse(" 12 ") as? Int == 12)
        #expect(try Self.parse("\"s\"") as? String == "s")
        #expect(try Self.parse("null") is JSONNull)
        #expect(try Self.parse("false") as? Bool == false)
        #expect(try JSONCodec.encodeData(["k": "v"]) == Data(#"{"k":"v"}"#.utf8))
    }

    @Test("The last of duplicate keys wins")
    func duplicateKeys() throws {
        let object = try #require(try Self.parse(#"{"a":1,"b":2,"a":{"x":3}}"#) as? [String: Any])
        #expect(object.count == 2)
        #expect((object["a"] as? [String: Any])?["x"] as? Int == 3)
        #expect(object["b"] as? Int == 2)
    }

    // MARK: Strings

    @Test("Escapes and surrogate pairs decode; control characters, quotes and backslashes encode")
    func escapes() throws {
        let parsed = try Self.parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9\u4E2D\ud83d\ude00\u0000é中😀""#)
        #expect(parsed as? String == "\"\\/\u{8}\u{C}\n\r\tAé中😀\u{0}é中😀")
        // Escapes between plain runs, and a string that is only an escape.
        #expect(try Self.parse(#"["ab\ncd\u00FCef", "\t"]"#) as? [String] == ["ab\ncdüef", "\t"])

        let text = try Self.encoded("q\"b\\s/n\nr\rt\tb\u{8}f\u{C}z\u{0}u\u{1F}d\u{7F}é中😀\u{2028}")
        #expect(text == #""q\"b\\s/n\nr\rt\tb\bf\fz\u0000u\u001fd"# + "\u{7F}é中😀\u{2028}\"")
        #expect(try Self.parse(text) as? String == "q\"b\\s/n\nr\rt\tb\u{8}f\u{C}z\u{0}u\u{1F}d\u{7F}é中😀\u{2028}")
        // Non-ASCII is written as UTF-8, not escaped.
        #expect(try JSONCodec.encode("é") == [0x22, 0xC3, 0xA9, 0x22])
        // Keys are escaped like values.
        #expect(try Self.encoded(["a\"\n": 1]) == #"{"a\"\n":1}"#)
    }

    // MARK: Malformed input

    /// A malformed document, the offset the error must name and a word of its message.
    struct Malformed: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let offset: Int
        let message: String
        init(_ text: String, at offset: Int, _ message: String) { self.init(Array(text.utf8), at: offset, message) }
        init(_ bytes: [UInt8], at offset: Int, _ message: String) {
            self.bytes = bytes
            self.offset = offset
            self.message = message
        }
        var testDescription: String { String(decoding: bytes, as: UTF8.self).debugDescription }
    }

    static let malformed: [Malformed] = [
        Malformed("", at: 0, "end of input"),
        Malformed("   ", at: 3, "end of input"),
        Malformed("[1,2", at: 4, "end of input"),
        Malformed(#"{"a":1"#, at: 6, "end of input"),
        Malformed(#"{"a":"#, at: 5, "end of input"),
        Malformed(#"{"a""#, at: 4, "':'"),
        Malformed(#""abc"#, at: 0, "unterminated string"),
        Malformed(#""ab\"#, at: 3, "unterminated string"),
        Malformed(#""ab\n"#, at: 0, "unterminated string"),
        Malformed("tru", at: 0, "invalid literal"),
        Malformed("nul", at: 0, "invalid literal"),
        Malformed("True", at: 0, "unexpected character 'T'"),
        Malformed("[1] x", at: 4, "after the JSON value"),
        Malformed("1 2", at: 2, "after the JSON value"),
        Malformed("{}}", at: 2, "after the JSON value"),
        Malformed("nulls", at: 4, "after the JSON value"),
        Malformed("[1]\u{0}", at: 3, "byte 0x00 after the JSON value"),
        Malformed("01", at: 0, "leading zero"),
        Malformed("[-01]", at: 2, "leading zero"),
        Malformed("00.5", at: 0, "leading zero"),
        Malformed("+1", at: 0, "unexpected character '+'"),
        Malformed(".5", at: 0, "unexpected character '.'"),
        Malformed("1.", at: 2, "decimal point"),
        Malformed("1.e5", at: 2, "decimal point"),
        Malformed("-", at: 1, "digit"),
        Malformed("-x", at: 1, "digit"),
        Malformed("1e", at: 2, "exponent"),
        Malformed("1e+", at: 3, "exponent"),
        Malformed("0x10", at: 1, "after the JSON value"),
        Malformed("NaN", at: 0, "unexpected character 'N'"),
        Malformed("Infinity", at: 0, "unexpected character 'I'"),
        Malformed("-Infinity", at: 1, "digit"),
        Malformed("1e400", at: 0, "out of range"),
        Malformed("[-1e999]", at: 1, "out of range"),
        Malformed("[1,]", at: 3, "expected a value"),
        Malformed("[,1]", at: 1, "expected a value"),
        Malformed(#"{"a":1,}"#, at: 7, "string key"),
        Malformed(#"{,}"#, at: 1, "string key"),
        Malformed(#"{1:2}"#, at: 1, "string key"),
        Malformed(#"{"a" 1}"#, at: 5, "':'"),
        Malformed(#"{"a":1 "b":2}"#, at: 7, "',' or '}'"),
        Malformed("[1 2]", at: 3, "',' or ']'"),
        Malformed("[1}", at: 2, "',' or ']'"),
        Malformed(#"{"a":1]"#, at: 6, "',' or '}'"),
        Malformed(#""\x""#, at: 1, "invalid escape"),
        Malformed(#""\U0041""#, at: 1, "invalid escape"),
        Malformed(#""\u12""#, at: 3, "\\u escape"),
        Malformed(#""\u12G4""#, at: 5, "hex digit"),
        Malformed(#""\ud800""#, at: 1, "high surrogate"),
        Malformed(#""a\ud800b""#, at: 2, "high surrogate"),
        Malformed(#""\ud800\u0041""#, at: 1, "high surrogate"),
        Malformed(#""\ud800\ud800""#, at: 1, "high surrogate"),
        Malformed(#""\ud800\n""#, at: 1, "high surrogate"),
        Malformed(#""\udc00""#, at: 1, "low surrogate"),
        Malformed(#""\ude00\ud83d""#, at: 1, "low surrogate"),
        Malformed([0x22, 0xFF, 0x22], at: 1, "invalid UTF-8"),
        Malformed([0x22, 0x61, 0x80, 0x22], at: 2, "invalid UTF-8"),  // a lone continuation byte
        Malformed([0x22, 0xC0, 0xAF, 0x22], at: 1, "invalid UTF-8"),  // overlong "/"
        Malformed([0x22, 0xE0, 0x80, 0xAF, 0x22], at: 1, "invalid UTF-8"),  // overlong, 3 bytes
        Malformed([0x22, 0xED, 0xA0, 0x80, 0x22], at: 1, "invalid UTF-8"),  // an encoded surrogate
        Malformed([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], at: 1, "invalid UTF-8"),  // above U+10FFFF
        Malformed([0x22, 0xE2, 0x82, 0x22], at: 1, "invalid UTF-8"),  // truncated sequence
        Malformed([0x22, 0x5C, 0x6E, 0xC3, 0x22], at: 3, "invalid UTF-8"),  // after an escape
        Malformed([0xC3, 0xA9], at: 0, "unexpected byte 0xC3"),  // outside a string
        Malformed([0xEF, 0xBB, 0xBF, 0x31], at: 0, "unexpected byte 0xEF"),  // a byte order mark
        Malformed("\"a\u{1}\"", at: 2, "control character"),
        Malformed("\"a\nb\"", at: 2, "control character"),
        Malformed("\"a\\n\tb\"", at: 4, "control character"),
        Malformed("[1,\u{0C}2]", at: 3, "expected a value"),  // form feed is not JSON whitespace
    ]

    @Test("Malformed input fails with the offset of the problem", arguments: malformed)
    func rejects(_ input: Malformed) {
        do {
            let value = try JSONCodec.parse(input.bytes)
            Issue.record("accepted, giving \(value)")
        } catch {
            #expect(error.offset == input.offset, "\(error)")
            #expect(error.message.contains(input.message), "\(error)")
            #expect(error.description.contains("at byte \(input.offset)"))
        }
        // The oracle: Foundation rejects these too (it accepts only trailing commas and the byte order mark).
        if !["[1,]", #"{"a":1,}"#].contains(String(decoding: input.bytes, as: UTF8.self)) && input.bytes.first != 0xEF {
            #expect(Self.foundationParse(input.bytes) == nil)
        }
    }

    @Test("Hostile nesting fails cleanly instead of overflowing the stack")
    func deepNesting() throws {
        let opening = [UInt8](repeating: UInt8(ascii: "["), count: 10_000)
        let error = #expect(throws: JSONCodecError.self) { try JSONCodec.parse(opening) }
        #expect(error?.offset == 64)
        #expect(error?.message == "nesting deeper than 64 levels")
        // With no depth limit to stop it, the parser still does not recurse: it reaches the end.
        let balanced = opening + [UInt8](repeating: UInt8(ascii: "]"), count: 10_000)
        #expect(throws: JSONCodecError.self) { try JSONCodec.parse(opening, maxDepth: .max) }
        #expect(try JSONCodec.parse(balanced, maxDepth: 10_000) is [Any])
        #expect(throws: JSONCodecError.self) { try JSONCodec.parse(balanced, maxDepth: 9_999) }
        let objects = Array(String(repeating: #"{"a":"#, count: 10_000).utf8)
        #expect(throws: JSONCodecError.self) { try JSONCodec.parse(objects) }
        #expect(throws: JSONCodecError.self) { try JSONCodec.parse(objects, maxDepth: .max) }

        // Exactly maxDepth levels are allowed, empty containers count, and scalars need none.
        let sixtyFour = String(repeating: "[", count: 63) + "{}" + String(repeating: "]", count: 63)
        #expect(try Self.parse(sixtyFour) is [Any])
        #expect(throws: JSONCodecError.self) { try Self.parse("[" + sixtyFour + "]") }
        #expect(throws: JSONCodecError.self) { try Self.parse("[]", maxDepth: 0) }
        #expect(try Self.parse("7", maxDepth: 0) as? Int == 7)
        #expect(try Self.parse(#"{"a":[1]}"#, maxDepth: 2) is [String: Any])
        #expect(throws: JSONCodecError.self) { try Self.parse(#"{"a":[1]}"#, maxDepth: 1) }
    }

    // MARK: Numbers

    @Test("Integer literals that fit are Int; fractions, exponents and overflow are Double")
    func numberTyping() throws {
        let integers: [(String, Int)] = [
            ("0", 0), ("-0", 0), ("7", 7), ("-42", -42), ("9223372036854775807", .max), ("-9223372036854775808", .min),
        ]
        for (text, expected) in integers {
            let value = try Self.parse(text)
            #expect(value as? Int == expected, "\(text)")
            #expect(!(value is Double), "\(text)")
        }
        let doubles: [(String, Double)] = [
            ("1.0", 1), ("-0.0", -0.0), ("1e2", 100), ("1E+2", 100), ("25e-1", 2.5), ("0.1", 0.1),
            ("9223372036854775808", 9_223_372_036_854_775_808), ("-9223372036854775809", -9_223_372_036_854_775_808),
            ("123456789012345678901234567890", 1.2345678901234568e29), ("1e-400", 0), ("4.9e-324", .leastNonzeroMagnitude),
            ("1.7976931348623157e308", .greatestFiniteMagnitude),
        ]
        for (text, expected) in doubles {
            let value = try Self.parse(text)
            #expect(value as? Double == expected, "\(text)")
            #expect(!(value is Int), "\(text)")
        }
        #expect((try Self.parse("-0.0") as? Double)?.sign == .minus)
    }

    @Test("Every integer type and finite floating-point values encode; integral doubles have no fraction")
    func numberEncoding() throws {
        let cases: [(Any, String)] = [
            (Int.min, "-9223372036854775808"), (Int.max, "9223372036854775807"), (Int8.min, "-128"), (Int16(-300), "-300"),
            (Int32.max, "2147483647"), (Int64.min, "-9223372036854775808"), (UInt.max, "18446744073709551615"),
            (UInt8.max, "255"), (UInt16(0), "0"), (UInt32.max, "4294967295"), (UInt64.max, "18446744073709551615"),
            (2.0, "2"), (-3.0, "-3"), (0.0, "0"), (-0.0, "-0"), (0.5, "0.5"), (0.1, "0.1"), (1.0 / 3, "0.3333333333333333"),
            (9_007_199_254_740_991.0, "9007199254740991"), (1e300, "1e+300"), (Double.leastNonzeroMagnitude, "5e-324"), (1e-7, "1e-07"),
            (Float(2), "2"), (Float(0.1), "0.1"), (Float(-1.5), "-1.5"),
        ]
        for (value, expected) in cases {
            let text = try Self.encoded(value)
            #expect(text == expected, "\(value) (\(type(of: value)))")
            // Whatever the form, it is JSON that reads back as the same number.
            let number = try #require(Self.foundationParse(Array(text.utf8)) as? NSNumber, "\(text)")
            if let double = value as? Double { #expect(number.doubleValue == double) }
        }
        // 2^53 and beyond: still valid JSON, still the same number.
        for value in [9_007_199_254_740_992.0, 1e16, -1.5e300, .greatestFiniteMagnitude] {
            let text = try Self.encoded(value)
            #expect(try Self.parse(text) as? Double == value, "\(text)")
        }
    }

    @Test("Bool is never written as a number, nor a number as a Bool")
    func booleans() throws {
        #expect(try Self.encoded(true) == "true")
        #expect(try Self.encoded([true, 1, false, 0, UInt8(1)] as [Any]) == "[true,1,false,0,1]")
        #expect(try Self.encoded(["on": true, "off": false]) == #"{"off":false,"on":true}"#)
        #expect(try Self.encoded([true, false]) == "[true,false]")
        let parsed = try #require(try Self.parse("[true,1,false,0]") as? [Any])
        #expect(parsed[0] as? Bool == true && parsed[0] as? Int == nil)
        #expect(parsed[1] as? Int == 1 && parsed[1] as? Bool == nil)
        #expect(parsed[2] as? Bool == false && parsed[3] as? Int == 0)
    }

    // MARK: Encoding

    @Test("Typed containers, optionals and JSONNull encode; other types fail with their name")
    func encodingTypes() throws {
        let ints: [String: Int] = ["b": 2, "a": 1]
        #expect(try Self.encoded(ints) == #"{"a":1,"b":2}"#)
        #expect(try Self.encoded(["x": "y"]) == #"{"x":"y"}"#)
        #expect(try Self.encoded([1.5, 2]) == "[1.5,2]")
        #expect(try Self.encoded([["a"], ["b", "c"]]) == #"[["a"],["b","c"]]"#)
        #expect(try Self.encoded([String: [Int]]()) == "{}")
        let optionals: [String: Int?] = ["none": nil, "some": 3]
        #expect(try Self.encoded(optionals) == #"{"none":null,"some":3}"#)
        let doubleOptional: String?? = "s"
        let nested: [Any?] = [nil, doubleOptional as Any, [String?.none as Any]]
        #expect(try Self.encoded(nested) == #"[null,"s",[null]]"#)
        let bare: Any = Int?.none as Any
        #expect(try Self.encoded(bare) == "null")
        #expect(try Self.encoded(JSONNull()) == "null")

        struct Custom {}
        let unsupported: [(Any, String)] = [
            (Date(timeIntervalSince1970: 0), "Date"), (Data([1]), "Data"), (Custom(), "Custom"), (Double.nan, "nan"),
            (Double.infinity, "inf"), (-Float.infinity, "-inf"), ([1: "x"], "Dictionary<Int, String>"),
            (["ok": [Date()]] as [String: Any], "Date"), (NSNull(), "NSNull"), (Set([1]), "Set<Int>"),
        ]
        for (value, name) in unsupported {
            do {
                let text = try Self.encoded(value)
                Issue.record("\(type(of: value)) encoded as \(text)")
            } catch {
                #expect(error.offset == nil)
                #expect(error.description.contains(name), "\(error)")
                #expect(error.description.hasPrefix("JSON encode error: "), "\(error)")
            }
        }
    }

    @Test("Sorted keys follow the order of the keys' UTF-8 bytes")
    func sortedKeys() throws {
        let keys = ["b", "a", "B", "_", "aa", "é", "😀", "a10", "a9", "", "~", "Z", "0", "ｱ"]
        var object: [String: Any] = [:]
        for (position, key) in keys.enumerated() { object[key] = position }
        let text = try Self.encoded(object)
        #expect(text == #"{"":9,"0":12,"B":2,"Z":11,"_":3,"a":1,"a10":7,"a9":8,"aa":4,"b":0,"~":10,"é":5,"ｱ":13,"😀":6}"#)

        // Unsorted output has every member, in some order.
        let unsorted = try Self.encoded(object, sortedKeys: false)
        #expect(Self.value(try Self.parse(unsorted)) == Self.value(object))

        // For lowercase ASCII keys the order is the one JSONSerialization's .sortedKeys gives.
        // (For other keys it is not: Foundation compares case-insensitively and digits numerically.)
        var rng = SeededGenerator(seed: 0x5EED_0001)
        for _ in 0..<200 {
            var object: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                let length = Int.random(in: 1...4, using: &rng)
                object[String((0..<length).map { _ in "abcxyz".randomElement(using: &rng)! })] = 1
            }
            let foundation = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            #expect(try JSONCodec.encodeData(object) == foundation)
        }
    }

    // MARK: Fuzz

    @Test("Random documents agree with JSONSerialization in both directions")
    func randomDocuments() throws {
        var rng = SeededGenerator(seed: 0x5EED_0002)
        for iteration in 0..<3_000 {
            let document = Self.randomDocument(&rng)
            let expected = try #require(Self.value(document))

            // Our output, read by Foundation and by us (and written again byte for byte).
            let ours = try JSONCodec.encode(document)
            let foundationRead = try #require(Self.foundationParse(ours), "iteration \(iteration): \(expected)")
            #expect(Self.value(foundationRead)?.withoutByteOrderMarks == expected.withoutByteOrderMarks, "iteration \(iteration)")
            let ourRead = try JSONCodec.parse(ours)
            #expect(Self.value(ourRead) == expected, "iteration \(iteration)")
            #expect(try JSONCodec.encode(ourRead) == ours, "iteration \(iteration)")

            // Foundation's output (which escapes "/" and orders keys its own way), read by us.
            let foundation = try JSONSerialization.data(
                withJSONObject: Self.foundationValue(document), options: [.fragmentsAllowed])
            #expect(Self.value(try JSONCodec.parse(foundation)) == expected, "iteration \(iteration)")
        }
    }

    @Test("Mutated documents never crash, and whatever is accepted is what Foundation reads")
    func mutations() throws {
        var rng = SeededGenerator(seed: 0x5EED_0003)
        var accepted = 0
        var rejected = 0
        for iteration in 0..<6_000 {
            let document = Self.randomDocument(&rng)
            let input = Self.mutate(try JSONCodec.encode(document), &rng)
            let parsed: Any
            do {
                parsed = try JSONCodec.parse(input)
            } catch {
                rejected += 1
                #expect(error.offset.map { (0...input.count).contains($0) } == true, "\(error)")
                continue
            }
            accepted += 1
            let value = try #require(Self.value(parsed))
            // Foundation is laxer (trailing commas, a byte order mark), never stricter.
            let foundation = Self.foundationParse(input)
            let context = "iteration \(iteration): \(String(decoding: input, as: UTF8.self).debugDescription)"
            let foundationValue = try #require(foundation.flatMap(Self.value), "Foundation rejects \(context)")
            #expect(
                value.withoutByteOrderMarks.isClose(to: foundationValue.withoutByteOrderMarks), "\(context): \(value) vs \(foundationValue)"
            )
            // And it survives another round trip.
            #expect(Self.value(try JSONCodec.parse(try JSONCodec.encode(parsed))) == value, "\(context)")
        }
        // Random noise as well, including bytes that are not JSON at all.
        for _ in 0..<2_000 {
            let noise = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? JSONCodec.parse(noise)
        }
        #expect(accepted > 300 && rejected > 1_000, "accepted \(accepted), rejected \(rejected)")
    }
}
