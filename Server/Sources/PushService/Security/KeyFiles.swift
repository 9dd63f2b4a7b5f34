import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Loads or creates the secrets the service needs at start: the admin API key and the
/// 32-byte key that seals provider secrets. Files are created with mode 0600.
enum KeyFiles {
    /// Reads a text key from `path`, or creates it with a random value.
    static func loadOrCreateText(at path: String, make: () -> String) throws -> (value: String, created: Bool) {
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            let trimmed = text.trimmingWhitespace
            if !trimmed.isEmpty { return (trimmed, false) }
        }
        let value = make()
        try write(value + "\n", to: path)
        return (value, true)
    }

    /// Parses a 32-byte key written as base64 or 64 hex digits.
    static func parseKey(_ text: String) -> Data? {
        let trimmed = text.trimmingWhitespace
        if trimmed.count == 64, let data = Data(hex: trimmed) { return data }
        if let data = Data(base64Encoded: trimmed), data.count == 32 { return data }
        return nil
    }

    static func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError.invalid("cannot write \(path)")
        }
    }
}

extension Data {
    /// Parses hex (either case); nil on odd length or a non-hex character.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}
