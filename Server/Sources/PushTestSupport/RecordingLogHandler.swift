import ServerSupport

/// A test double for the service's logger: keeps every record it is given, with its level,
/// in order. Hand ``logger(level:)`` to what is under test and read the records back.
public final class RecordingLogHandler: LogHandler {
    private let recorded = Locked<[LogRecord]>([])

    /// Creates an empty recorder.
    public init() {}

    /// A logger writing here from `level` up.
    public func logger(level: LogLevel = .debug) -> Logger {
        Logger(level: level, handler: self)
    }

    /// Keeps the record.
    public func log(_ record: LogRecord) {
        recorded.withLock { $0.append(record) }
    }

    /// Every record so far, in order.
    public var records: [LogRecord] {
        recorded.withLock { $0 }
    }

    /// Every record so far as the line the service writes (``LogRecord/line``: escaped).
    public var lines: [String] {
        records.map(\.line)
    }

    /// The messages (as written, not escaped) logged at `level`.
    public func messages(at level: LogLevel) -> [String] {
        records.filter { $0.level == level }.map(\.message)
    }

    /// The records whose message contains `text`.
    public func records(containing text: String) -> [LogRecord] {
        records.filter { $0.message.contains(text) }
    }
}
