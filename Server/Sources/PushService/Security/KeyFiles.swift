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

    /// Writes a key file as a private file (mode 0600, never readable by others, even briefly).
    static func write(_ text: String, to path: String) throws {
        try PrivateFiles.write(text, to: path)
    }
}
