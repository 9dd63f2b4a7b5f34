#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The encoder behind `JSONCodec.encode`.

/// Lets the encoder see through an `Optional` boxed in `Any`.
protocol JSONCodecOptional {
    /// The wrapped value, or `nil`.
    var jsonCodecWrapped: Any? { get }
}

extension Optional: JSONCodecOptional {
    var jsonCodecWrapped: Any? { self.map { $0 } }
}

extension JSONCodec {
    /// Writes one value as compact JSON into `output` (see ``JSONCodec/encode(_:sortedKeys:)``).
    struct Encoder {
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
}
