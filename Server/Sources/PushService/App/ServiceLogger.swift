import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A minimal leveled logger writing one line per message to a sink (standard error by
/// default). Callers never pass secrets: tokens appear as short prefixes at most.
///
/// A message is always one line: control characters in it (text taken from requests, such as a
/// path with `%0d%0a` or an escape sequence in it) are written escaped (``escaped(_:)``), so no
/// request can forge a log line or drive a terminal.
public struct ServiceLogger: Sendable {
    /// Severity.
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The lowest level written.
    public var minimum: Level
    private let sink: @Sendable (String) -> Void

    /// Creates a logger; the default sink is standard error.
    public init(
        minimum: Level = .info,
        sink: @escaping @Sendable (String) -> Void = { line in
            StandardStream.error(line)
        }
    ) {
        self.minimum = minimum
        self.sink = sink
    }

    /// A logger that drops everything.
    public static let silent = ServiceLogger(minimum: .error) { _ in }

    func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= minimum else { return }
        let stamp = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        sink("\(stamp) [\(level)] \(Self.escaped(message()))")
    }

    /// `text` with its control characters escaped: CR, LF and tab as `\r`, `\n`, `\t`, every
    /// other C0 control, DEL, C1 control and the Unicode line and paragraph separators as
    /// `\u{1b}` (the scalar in hex). Text without them is returned as it is.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
