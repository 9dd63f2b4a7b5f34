import Foundation

/// Reads values out of a push payload without trusting their types: numbers may arrive as
/// strings and strings as numbers, objects as JSON text, and anything may be missing or wrong.
/// A value of the wrong type reads as `nil`; nothing here traps.
enum PayloadReader {
    /// JSON text longer than this is not decoded (APNs payloads are at most 5 KB).
    static let maxJSONTextLength = 16 * 1024

    /// A dictionary, from a dictionary of any key type or from JSON text holding an object.
    static func dictionary(_ value: Any?) -> [AnyHashable: Any]? {
        switch value {
        case let dict as [AnyHashable: Any]: return dict
        case let dict as NSDictionary: return anyKeyed(dict)
        default: return object(value)
        }
    }

    /// An object to read by text key: a dictionary (its entries whose keys are text) or JSON
    /// text holding an object. Parsers read payloads through this rather than through
    /// ``dictionary(_:)``: a lookup by text key in `[String: Any]` hashes and compares strings,
    /// one in `[AnyHashable: Any]` boxes and compares `AnyHashable`s, several times slower.
    static func object(_ value: Any?) -> [String: Any]? {
        switch value {
        case let dict as [String: Any]: return dict
        case let dict as [AnyHashable: Any]: return textKeyed(dict)
        case let dict as NSDictionary: return textKeyed(anyKeyed(dict))
        case let text as String: return jsonObject(text)
        case let data as Data: return jsonObject(data)
        default: return nil
        }
    }

    /// Every entry of `dictionary` whose key is hashable.
    private static func anyKeyed(_ dictionary: NSDictionary) -> [AnyHashable: Any] {
        var out: [AnyHashable: Any] = [:]
        for (key, element) in dictionary { if let key = key as? AnyHashable { out[key] = element } }
        return out
    }

    /// The entries of `dictionary` whose keys are text, keyed by that text.
    static func textKeyed(_ dictionary: [AnyHashable: Any]) -> [String: Any] {
        var out = [String: Any](minimumCapacity: dictionary.count)
        for (key, value) in dictionary { if let key = key.base as? String { out[key] = value } }
        return out
    }

    /// Non-blank text, from a string or a number (`12` reads as `"12"`). Booleans read as `nil`.
    static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String:
            let trimmed = trimmed(text)
            return trimmed.isEmpty ? nil : trimmed
        case let number as NSNumber:
            guard !isBoolean(number) else { return nil }
            if let integer = integer(number) { return String(integer) }
            let double = number.doubleValue
            return double.isFinite ? String(double) : nil
        default:
            return nil
        }
    }

    /// A whole number, from a number or from text (`"5"`, `" 5 "`, `"5.0"`). Booleans,
    /// fractions, non-finite and out-of-range values read as `nil`.
    static func integer(_ value: Any?) -> Int? {
        switch value {
        case let number as NSNumber:
            return isBoolean(number) ? nil : integer(number)
        case let text as String:
            guard text.utf8.count <= 64 else { return nil }
            let trimmed = trimmed(text)
            guard !trimmed.isEmpty else { return nil }
            if let exact = Int(trimmed) { return exact }
            guard let double = Double(trimmed) else { return nil }
            return integer(exactly: double)
        default:
            return nil
        }
    }

    /// A non-negative whole number, or `nil`.
    static func count(_ value: Any?) -> Int? {
        guard let value = integer(value), value >= 0 else { return nil }
        return value
    }

    /// `text` without leading and trailing white space; the text itself when it has none (the
    /// common case, without copying).
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return text }
        if !first.properties.isWhitespace, !last.properties.isWhitespace { return text }
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }

    private static func integer(_ number: NSNumber) -> Int? {
        switch typeCode(number) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"): return integer(exactly: number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"):
            let unsigned = number.uint64Value
            return unsigned <= UInt64(Int.max) ? Int(unsigned) : nil
        default: return Int(exactly: number.int64Value)
        }
    }

    private static func integer(exactly double: Double) -> Int? {
        guard double.isFinite, double.rounded() == double,
            double >= -9_007_199_254_740_992, double <= 9_007_199_254_740_992
        else { return nil }
        return Int(double)
    }

    /// `NSNumber`s made from `true`/`false` (JSON booleans) report the `char` type.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        let type = typeCode(number)
        return type == UInt8(ascii: "c") || type == UInt8(ascii: "B")
    }

    /// The first character of the number's Objective-C type encoding.
    private static func typeCode(_ number: NSNumber) -> UInt8 { UInt8(bitPattern: number.objCType.pointee) }

    private static func jsonObject(_ text: String) -> [String: Any]? {
        guard text.utf8.count <= maxJSONTextLength,
            text.first(where: { !$0.isWhitespace }) == "{"
        else { return nil }
        return jsonObject(Data(text.utf8))
    }

    private static func jsonObject(_ data: Data) -> [String: Any]? {
        guard data.count <= maxJSONTextLength,
            let object = try? JSONSerialization.jsonObject(with: data)
        else { return nil }
        return object as? [String: Any]
    }
}
