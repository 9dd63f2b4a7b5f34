#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The service's one logger: a value with a minimum level and a handler (where lines go),
/// made once by the process and passed down to every part that logs. Parts never build
/// their own; a part that is given ``silent`` logs nothing.
///
/// A message is text for an operator and never holds a secret: tokens appear as short
/// prefixes at most, keys and auth tokens not at all. Text taken from requests may be in it:
/// the line formatter (``LogRecord/line``) escapes every control character, so no message can
/// forge a line or drive a terminal.
public struct Logger: Sendable {
    /// The lowest level written; messages below it are not even built.
    public var level: LogLevel
    /// Where the records go.
    public let handler: any LogHandler

    /// Creates a logger that hands every record at `level` or above to `handler` (standard
    /// error by default).
    public init(level: LogLevel = .info, handler: any LogHandler = StandardErrorLogHandler()) {
        self.level = level
        self.handler = handler
    }

    /// A logger that writes nothing.
    public static let silent = Logger(level: .error, handler: DiscardingLogHandler())

    /// Whether a message at `level` would be written.
    public func isLogging(_ level: LogLevel) -> Bool { level >= self.level }

    /// Writes `message` at `level`, when the logger's level lets it through.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard isLogging(level) else { return }
        handler.log(LogRecord(level: level, message: message(), date: Date()))
    }

    /// What only someone chasing a problem wants: one line per push, say.
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    /// The service doing its work: requests, accepted sends, deliveries, changes made through the API.
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Something went wrong and is retried or worked around; worth a look if it repeats.
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Something failed and needs an operator: the store cannot be read, a provider is misconfigured.
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// How much a log line matters, from the least (`debug`) to the most (`error`).
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Detail for chasing a problem.
    case debug
    /// Normal work.
    case info
    /// A problem that is retried or worked around.
    case warning
    /// A failure that needs an operator.
    case error

    /// The level named `name` (`debug`, `info`, `warning`, `error`; any case), or nil.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = level
    }

    /// The level's name, as lines and `--log-level` spell it.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// Whether `lhs` matters less than `rhs`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One message as a ``Logger`` hands it to its handler.
public struct LogRecord: Sendable {
    /// Its level.
    public let level: LogLevel
    /// The message as it was written (it may hold control characters taken from a request).
    public let message: String
    /// When it was logged.
    public let date: Date

    /// Creates a record.
    public init(level: LogLevel, message: String, date: Date) {
        self.level = level
        self.message = message
        self.date = date
    }

    /// The record as one line: `<ISO 8601 time> [<level>] <message>`, the message with its
    /// control characters escaped (``escaped(_:)``). The one formatter of the service's lines.
    public var line: String {
        let stamp = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        return "\(stamp) [\(level)] \(Self.escaped(message))"
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
}
