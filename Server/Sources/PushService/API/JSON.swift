import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON parsing and encoding for the API, with the limits that keep bad input harmless.
enum JSON {
    /// The deepest nesting accepted in a request body.
    static let maxDepth = 32

    /// Parses a request body that must be a JSON object.
    static func object(from body: Data) throws(APIError) -> JSONObject {
        guard !body.isEmpty else { throw .badRequest("The request body must be a JSON object.", field: "body", problem: "missing") }
        guard depthIsAcceptable(body) else {
            throw .badRequest("The request body is nested too deeply.", field: "body", problem: "too deep")
        }
        guard let value = try? JSONCodec.parse(body, maxDepth: maxDepth + 1), let dictionary = value as? [String: Any] else {
            throw .badRequest("The request body is not a JSON object.", field: "body", problem: "not a JSON object")
        }
        return JSONObject(dictionary, path: "")
    }

    /// Encodes a JSON value with sorted keys (stable output).
    static func encode(_ value: Any) -> Data {
        (try? JSONCodec.encodeData(value, sortedKeys: true)) ?? Data("{}".utf8)
    }

    /// Counts bracket depth outside strings, so deeply nested input never reaches the parser.
    static func depthIsAcceptable(_ body: Data) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > maxDepth { return false }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return true
    }
}

/// A parsed JSON object with typed, validating accessors that throw the §2 error envelope.
struct JSONObject {
    let values: [String: Any]
    let path: String

    init(_ values: [String: Any], path: String) {
        self.values = values
        self.path = path
    }

    private func name(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// A string field: present, a string, 1...maxLength characters, no control characters.
    func string(_ key: String, maxLength: Int = 256, allowNewlines: Bool = false) throws(APIError) -> String {
        guard let value = try optionalString(key, maxLength: maxLength, allowNewlines: allowNewlines) else {
            throw .badRequest("The \(name(key)) field is required.", field: name(key), problem: "missing")
        }
        return value
    }

    /// An optional string field (absent or null → nil; empty → error).
    func optionalString(_ key: String, maxLength: Int = 256, allowNewlines: Bool = false) throws(APIError) -> String? {
        guard let raw = values[key], !(raw is JSONNull) else { return nil }
        guard let value = raw as? String else {
            throw .badRequest("The \(name(key)) field must be a string.", field: name(key), problem: "not a string")
        }
        guard !value.isEmpty else { throw .badRequest("The \(name(key)) field is empty.", field: name(key), problem: "empty") }
        guard value.count <= maxLength else {
            throw .badRequest("The \(name(key)) field is longer than \(maxLength) characters.", field: name(key), problem: "too long")
        }
        let badScalar = value.unicodeScalars.contains { scalar in
            scalar.value < 0x20 && !(allowNewlines && (scalar == "\n" || scalar == "\t" || scalar == "\r")) || scalar.value == 0x7f
        }
        guard !badScalar else {
            throw .badRequest("The \(name(key)) field contains control characters.", field: name(key), problem: "control characters")
        }
        return value
    }

    /// An identifier-like string or number (message ids may be numeric).
    func identifier(_ key: String, maxLength: Int = 256) throws(APIError) -> String {
        if let number = values[key] as? Int {
            return String(number)
        }
        if let number = values[key] as? Double, let exact = Int64(exactly: number) {
            return String(exact)
        }
        return try string(key, maxLength: maxLength)
    }

    /// An optional boolean.
    func bool(_ key: String) throws(APIError) -> Bool? {
        guard let raw = values[key], !(raw is JSONNull) else { return nil }
        guard let value = raw as? Bool else {
            throw .badRequest("The \(name(key)) field must be true or false.", field: name(key), problem: "not a boolean")
        }
        return value
    }

    /// An optional integer within `range`.
    func int(_ key: String, in range: ClosedRange<Int64>) throws(APIError) -> Int64? {
        guard let raw = values[key], !(raw is JSONNull) else { return nil }
        let integer: Int64? =
            if let whole = raw as? Int { Int64(whole) } else if let real = raw as? Double { Int64(exactly: real) } else { nil }
        guard let value = integer, range.contains(value) else {
            throw .badRequest("The \(name(key)) field must be an integer in \(range).", field: name(key), problem: "out of range")
        }
        return value
    }

    /// A nested object (required).
    func object(_ key: String) throws(APIError) -> JSONObject {
        guard let nested = try optionalObject(key) else {
            throw .badRequest("The \(name(key)) field is required.", field: name(key), problem: "missing")
        }
        return nested
    }

    /// A nested object (absent or null → nil).
    func optionalObject(_ key: String) throws(APIError) -> JSONObject? {
        guard let raw = values[key], !(raw is JSONNull) else { return nil }
        guard let dictionary = raw as? [String: Any] else {
            throw .badRequest("The \(name(key)) field must be an object.", field: name(key), problem: "not an object")
        }
        return JSONObject(dictionary, path: name(key))
    }

    /// An array of objects with at most `maxCount` items.
    func objects(_ key: String, maxCount: Int) throws(APIError) -> [JSONObject] {
        guard let raw = values[key] as? [Any] else {
            throw .badRequest("The \(name(key)) field must be an array.", field: name(key), problem: "not an array")
        }
        guard !raw.isEmpty, raw.count <= maxCount else {
            throw .badRequest("The \(name(key)) field must have 1 to \(maxCount) items.", field: name(key), problem: "bad count")
        }
        var result: [JSONObject] = []
        for (index, item) in raw.enumerated() {
            guard let dictionary = item as? [String: Any] else {
                throw .badRequest(
                    "Item \(index) of \(name(key)) must be an object.", field: "\(name(key))[\(index)]", problem: "not an object")
            }
            result.append(JSONObject(dictionary, path: "\(name(key))[\(index)]"))
        }
        return result
    }

    /// The raw value (for pass-through fields such as `custom`).
    subscript(key: String) -> Any? {
        values[key].flatMap { $0 is JSONNull ? nil : $0 }
    }
}
