import Foundation

/// How serious a log line is.
#if canImport(ObjectiveC)
@objc(PNLogLevel)
#endif
public enum PNLogLevel: Int, Sendable, Comparable {
    /// Step-by-step detail.
    case debug = 0
    /// Something worth knowing happened.
    case info = 1
    /// Something went wrong and was handled, or the app is misconfigured.
    case warning = 2
    /// Something went wrong and a feature does not work.
    case error = 3

    /// Orders levels by severity.
    public static func < (lhs: PNLogLevel, rhs: PNLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Receives the SDK's log lines. The SDK never passes a whole push token or an auth token here.
/// On Apple platforms the default writes to `os.Logger`; apps and tests can pass their own.
public protocol PNLogger: Sendable {
    /// Records one line.
    func log(_ level: PNLogLevel, _ message: String)
}

/// Writes warnings and errors to standard error.
public struct PNStandardErrorLogger: PNLogger {
    /// The lowest level written.
    public var minimumLevel: PNLogLevel
    /// Creates the logger.
    public init(minimumLevel: PNLogLevel = .warning) { self.minimumLevel = minimumLevel }
    /// Writes the line if it is at or above ``minimumLevel``.
    public func log(_ level: PNLogLevel, _ message: String) {
        guard level >= minimumLevel else { return }
        FileHandle.standardError.write(Data("[CometChatPush] \(level): \(message)\n".utf8))
    }
}
