import ServerSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushCore

/// `--sender log`: writes one line per job (id, app, kind, platform, a token prefix, payload
/// size) at info level and reports it delivered. It sends nothing anywhere; the delivery
/// engine drives it like the real sender (claims, leases, batched finishing). When
/// `journalPath` is set it also appends `<job id>\n` to that file and flushes it before
/// answering.
public struct LogSender: PushSender {
    private let logger: Logger
    private let journal: FileJournal?

    /// Creates a log sender writing through `logger`.
    public init(journalPath: String? = nil, logger: Logger) {
        self.logger = logger
        self.journal = journalPath.map(FileJournal.init(path:))
    }

    /// Logs the job and reports it delivered.
    public func send(_ job: PushJob) async -> JobOutcome {
        let prefix = String(job.token.prefix(8))
        logger.info(
            "push job=\(job.id) app=\(job.appId) kind=\(job.kind.rawValue) platform=\(job.platform.rawValue) "
                + "token=\(prefix)… type=\(job.headers.pushType.rawValue) bytes=\(job.payload.count) attempt=\(job.attempts) [log sender: not sent]"
        )
        journal?.append(job.id + "\n")
        return .delivered
    }
}

/// An append-only file written with `write(2)` + `fsync(2)` per line.
final class FileJournal: Sendable {
    private let lock = Locked(())
    private let fd: Int32

    init(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    func append(_ line: String) {
        guard fd >= 0 else { return }
        let bytes = Array(line.utf8)
        lock.withLock { _ in
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            _ = fsync(fd)
        }
    }
}

/// `--sender none`: sends nothing and records every job failed with the reason
/// "not sent (--sender none)", so an operator sees in the delivery log that pushes went
/// nowhere. The delivery engine drives it like the real sender.
public struct NoneSender: PushSender {
    /// The reason recorded for every job.
    public static let reason = "not sent (--sender none)"

    /// Creates the sender.
    public init() {}

    /// Reports the job failed without sending it.
    public func send(_ job: PushJob) async -> JobOutcome {
        .failed(reason: Self.reason)
    }

    /// Answers at once on the caller's thread.
    public func send(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) {
        completion(.failed(reason: Self.reason))
    }
}
