import Foundation
import PushTestSupport
import ServerSupport
import Testing

/// The service's one logger: levels, the line format, escaping.
@Suite struct LoggerTests {
    /// A record below the logger's level reaches no handler, and its message is not built.
    @Test func aLineBelowTheLevelIsNeitherWrittenNorBuilt() {
        // Given a logger at warning
        let handler = RecordingLogHandler()
        let logger = handler.logger(level: .warning)
        let built = Locked(0)
        func message(_ text: String) -> String {
            built.withLock { $0 += 1 }
            return text
        }

        // When a line of each level is logged
        logger.debug(message("d"))
        logger.info(message("i"))
        logger.warning(message("w"))
        logger.error(message("e"))

        // Then only warning and error were built and written, each with its level
        #expect(built.withLock { $0 } == 2)
        #expect(handler.records.map(\.level) == [.warning, .error])
        #expect(handler.records.map(\.message) == ["w", "e"])
        #expect(!logger.isLogging(.info) && logger.isLogging(.error))
    }

    @Test(arguments: [(LogLevel.debug, "debug"), (.info, "info"), (.warning, "warning"), (.error, "error")])
    func aLevelIsNamedAsTheFlagSpellsIt(level: LogLevel, name: String) {
        #expect(level.description == name)
        #expect(LogLevel(name: name) == level)
        #expect(LogLevel(name: name.uppercased()) == level)
    }

    @Test func anUnknownLevelNameIsRefused() {
        #expect(LogLevel(name: "verbose") == nil)
        #expect(LogLevel(name: "") == nil)
    }

    @Test func levelsAreOrderedFromDebugToError() {
        #expect(LogLevel.allCases.sorted() == [.debug, .info, .warning, .error])
    }

    /// `<ISO 8601 time with milliseconds> [<level>] <message>`.
    @Test func aLineIsTheTimeTheLevelAndTheMessage() {
        let record = LogRecord(
            level: .info, message: "GET /apps 200 3ms client=127.0.0.1", date: Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(record.line == "2023-11-14T22:13:20.250Z [info] GET /apps 200 3ms client=127.0.0.1")
    }

    /// Text from a request (a path with `%0d%0a`, an escape sequence) cannot forge a line or
    /// reach the terminal: every control character is written escaped, the rest as it is.
    @Test func controlCharactersAreEscapedInTheLine() {
        let message = "GET /x\r\n[error] forged\u{1b}[31m/\n\t\u{7f}\u{85}\u{2028}end ünï"
        let line = LogRecord(level: .warning, message: message, date: Date()).line
        #expect(line.hasSuffix(#"[warning] GET /x\r\n[error] forged\u{1b}[31m/\n\t\u{7f}\u{85}\u{2028}end ünï"#), "\(line)")
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(LogRecord.escaped("plain text") == "plain text")
    }

    /// The silent logger drops everything, errors included.
    @Test func theSilentLoggerWritesNothing() {
        #expect(Logger.silent.handler is DiscardingLogHandler)
        #expect(!Logger.silent.isLogging(.warning))
    }
}
