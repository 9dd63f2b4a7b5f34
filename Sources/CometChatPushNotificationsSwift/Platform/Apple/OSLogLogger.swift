#if canImport(os)
import Foundation
import os

/// ``PNLogger`` on `os.Logger`, subsystem `com.cometchat.pushnotifications`. The SDK never logs
/// a whole token or an auth token, so messages are public.
struct OSLogLogger: PNLogger {
    private let logger = Logger(subsystem: "com.cometchat.pushnotifications", category: "sdk")

    func log(_ level: PNLogLevel, _ message: String) {
        switch level {
        case .debug: logger.debug("\(message, privacy: .public)")
        case .info: logger.info("\(message, privacy: .public)")
        case .warning: logger.warning("\(message, privacy: .public)")
        case .error: logger.error("\(message, privacy: .public)")
        }
    }
}
#endif
