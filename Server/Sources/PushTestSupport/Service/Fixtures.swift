import Foundation

/// Reads the `Contract/` fixtures shared with the SDK and matches answers against them.
public enum Fixtures {
    /// `<repository>/Contract` (this file is `<repository>/Server/Sources/PushTestSupport/Service/Fixtures.swift`).
    public static let contractDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Contract")

    /// The fixture `<folder>/<name>.json` as a JSON object.
    public static func load(_ folder: String, _ name: String) throws -> [String: Any] {
        let url = contractDirectory.appendingPathComponent(folder).appendingPathComponent(name + ".json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    }

    /// The names of the fixtures in `folder`, sorted.
    public static func names(in folder: String) -> [String] {
        let url = contractDirectory.appendingPathComponent(folder)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Replaces `{name}` placeholders inside strings.
    public static func substitute(_ value: Any, _ values: [String: String]) -> Any {
        switch value {
        case let text as String:
            var result = text
            for (name, replacement) in values { result = result.replacingOccurrences(of: "{\(name)}", with: replacement) }
            return result
        case let object as [String: Any]:
            return object.mapValues { substitute($0, values) }
        case let array as [Any]:
            return array.map { substitute($0, values) }
        default:
            return value
        }
    }

    /// Problems found when `actual` is checked against the fixture's `expected` shape:
    /// every expected key must be present; `{name}` must equal `values[name]` when known,
    /// else be a string; other values must be equal.
    public static func mismatches(expected: Any, actual: Any?, values: [String: String], path: String = "") -> [String] {
        switch expected {
        case let text as String:
            if text.hasPrefix("{"), text.hasSuffix("}"), !text.dropFirst().contains("{") {
                let name = String(text.dropFirst().dropLast())
                guard let actualText = actual as? String else { return ["\(path): expected a string, got \(String(describing: actual))"] }
                if let known = values[name], known != actualText { return ["\(path): expected \(known), got \(actualText)"] }
                return []
            }
            return (actual as? String) == text ? [] : ["\(path): expected \(text), got \(String(describing: actual))"]
        case let object as [String: Any]:
            guard let actualObject = actual as? [String: Any] else { return ["\(path): expected an object"] }
            return object.flatMap { key, value in
                mismatches(expected: value, actual: actualObject[key], values: values, path: path + "." + key)
            }
        case let array as [Any]:
            guard let actualArray = actual as? [Any], actualArray.count == array.count else { return ["\(path): array length differs"] }
            return zip(array, actualArray).enumerated().flatMap { index, pair in
                mismatches(expected: pair.0, actual: pair.1, values: values, path: "\(path)[\(index)]")
            }
        case let number as NSNumber:
            return (actual as? NSNumber) == number ? [] : ["\(path): expected \(number), got \(String(describing: actual))"]
        default:
            return actual == nil || actual is NSNull ? [] : ["\(path): expected null"]
        }
    }
}
