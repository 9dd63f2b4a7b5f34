/// Where a ``Logger``'s records go: standard error in the service, a recorder in tests
/// (`RecordingLogHandler` in PushTestSupport). Called on whatever thread logged; a handler
/// must be safe to call from several at once.
public protocol LogHandler: Sendable {
    /// Takes one record the logger's level let through.
    func log(_ record: LogRecord)
}

/// Writes each record as one line (``LogRecord/line``) to standard error, unbuffered.
public struct StandardErrorLogHandler: LogHandler {
    /// Creates the handler.
    public init() {}

    /// Writes the record's line.
    public func log(_ record: LogRecord) {
        StandardStream.error(record.line)
    }
}

/// Drops every record (``Logger/silent``).
public struct DiscardingLogHandler: LogHandler {
    /// Creates the handler.
    public init() {}

    /// Does nothing.
    public func log(_ record: LogRecord) {}
}
