import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A minimal leveled logger writing one line per message to a sink (standard error by
/// default). Callers never pass secrets: tokens appear as short prefixes at most.
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
        sink("\(stamp) [\(level)] \(message())")
    }

    func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
