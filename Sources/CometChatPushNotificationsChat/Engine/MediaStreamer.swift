import Foundation
import CometChatPushNotificationsSwift

/// The SDK's download loop: it opens the body through a ``PNMediaDownloading`` port, reads it
/// ``readSize`` bytes at a time and writes each piece to the destination file before it reads
/// the next, so the extension never holds more than one piece of an attachment in memory
/// (rule 16). It enforces the size cap (the announced length and the bytes counted), the
/// deadline (on its clock) and task cancellation, and deletes the partial file on failure.
public struct PNMediaStreamer: Sendable {
    /// The default read size: 64 KiB.
    public static let defaultReadSize = 64 * 1024

    /// How many bytes the loop asks for at once: the most it holds before they reach disk.
    public var readSize: Int
    /// The clock the deadline is checked on.
    public var clock: PNClock

    /// Creates the loop.
    ///
    /// - Parameters:
    ///   - readSize: bytes asked for at once (at least 1).
    ///   - clock: the clock the deadline is checked on.
    public init(readSize: Int = PNMediaStreamer.defaultReadSize, clock: PNClock = PNSystemClock()) {
        self.readSize = max(1, readSize)
        self.clock = clock
    }

    /// Streams `url`, opened through `downloader`, into `destination`.
    ///
    /// - Throws: ``PNDownloadError``: `.tooLarge` over `maxBytes`, `.timedOut` at the deadline
    ///   or when the task is cancelled, `.failed` otherwise. No file is left behind then.
    public func download(
        _ url: URL, from downloader: PNMediaDownloading, to destination: URL, maxBytes: Int, deadline: Date
    ) async throws -> PNDownloadedFile {
        if Task.isCancelled || clock.now() >= deadline { throw PNDownloadError.timedOut }
        try? FileManager.default.removeItem(at: destination)
        let body: any PNMediaBody
        do {
            body = try await downloader.open(url, writingTo: destination, deadline: deadline)
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw Self.downloadError(error)
        }
        do {
            let written = try await copy(body, to: destination, maxBytes: maxBytes, deadline: deadline)
            body.cancel()  // closes a connection that sends more than it announced
            return PNDownloadedFile(fileURL: destination, byteCount: written, claimedMIMEType: body.claimedMIMEType)
        } catch {
            body.cancel()
            try? FileManager.default.removeItem(at: destination)
            throw Self.downloadError(error)
        }
    }

    /// The loop proper: returns the bytes written.
    private func copy(_ body: any PNMediaBody, to destination: URL, maxBytes: Int, deadline: Date) async throws -> Int {
        if let expected = body.expectedLength, expected > maxBytes { throw PNDownloadError.tooLarge(limit: maxBytes) }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: destination)
        else { throw PNDownloadError.failed("Cannot create the file.") }
        defer { try? handle.close() }
        var written = 0
        while true {
            if Task.isCancelled || clock.now() >= deadline { throw PNDownloadError.timedOut }
            var wanted = readSize
            if let expected = body.expectedLength { wanted = min(wanted, max(0, expected - written)) }
            // A body that says more than it announced is cut at the announced length.
            if wanted == 0 { break }
            let piece = try await withTaskCancellationHandler {
                try await body.read(upTo: wanted)
            } onCancel: {
                body.cancel()
            }
            if piece.isEmpty { break }
            if written + piece.count > maxBytes { throw PNDownloadError.tooLarge(limit: maxBytes) }
            try handle.write(contentsOf: piece.prefix(wanted))
            written += min(piece.count, wanted)
        }
        if let expected = body.expectedLength, written < expected {
            throw PNDownloadError.failed("The body ended after \(written) of \(expected) announced bytes.")
        }
        if clock.now() > deadline { throw PNDownloadError.timedOut }
        return written
    }

    private static func downloadError(_ error: Error) -> PNDownloadError {
        if let error = error as? PNDownloadError { return error }
        if error is CancellationError { return .timedOut }
        return .failed(String(describing: error))
    }
}
