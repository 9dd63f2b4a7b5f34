import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CometChatPushNotificationsSwift

/// Downloads attachments with a `URLSession` download task: the system writes the body to
/// disk as it arrives, so memory stays flat whatever the file's size (rule 16). Progress
/// callbacks stop it at the size cap; a timer of its own cancels it at the deadline (the
/// session's resource timeout is not enough: swift-corelibs-foundation does not honour it while
/// a server trickles bytes).
public struct PNURLSessionDownloader: PNMediaDownloading {
    /// Creates the downloader.
    public init() {}

    /// Streams `url` into `destination`.
    public func download(_ url: URL, to destination: URL, maxBytes: Int, deadline: Date) async throws -> PNDownloadedFile {
        let timeout = deadline.timeIntervalSinceNow
        guard timeout > 0 else { throw PNDownloadError.timedOut }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = timeout
        configuration.timeoutIntervalForRequest = min(timeout, 15)
        configuration.urlCache = nil
        let receiver = DownloadReceiver(destination: destination, maxBytes: maxBytes)
        let session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: nil)
        let expiry = DispatchWorkItem { receiver.cancel(.timedOut) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: expiry)
        defer {
            expiry.cancel()
            session.finishTasksAndInvalidate()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                receiver.start(session.downloadTask(with: url), continuation: continuation)
            }
        } onCancel: {
            receiver.cancel(.timedOut)
        }
    }
}

/// Follows one download task: enforces the cap, moves the finished file, reports the outcome.
private final class DownloadReceiver: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock`.
    private let lock = NSLock()
    private let destination: URL
    private let maxBytes: Int
    private var written = 0
    private var moved = false
    private var failure: PNDownloadError?
    private var task: URLSessionDownloadTask?
    private var continuation: CheckedContinuation<PNDownloadedFile, Error>?

    init(destination: URL, maxBytes: Int) {
        self.destination = destination
        self.maxBytes = maxBytes
    }

    func start(_ task: URLSessionDownloadTask, continuation: CheckedContinuation<PNDownloadedFile, Error>) {
        lock.lock()
        self.task = task
        self.continuation = continuation
        let cancelled = failure != nil
        lock.unlock()
        if cancelled { task.cancel() } else { task.resume() }
    }

    func cancel(_ reason: PNDownloadError) {
        lock.lock()
        if failure == nil { failure = reason }
        let task = self.task
        lock.unlock()
        task?.cancel()
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        lock.lock()
        written = Int(totalBytesWritten)
        let over = written > maxBytes || totalBytesExpectedToWrite > Int64(maxBytes)
        if over, failure == nil { failure = .tooLarge(limit: maxBytes) }
        lock.unlock()
        if over { downloadTask.cancel() }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The file at `location` is deleted when this method returns: move it now.
        try? FileManager.default.removeItem(at: destination)
        let ok = (try? FileManager.default.moveItem(at: location, to: destination)) != nil
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
        lock.lock()
        moved = ok
        written = size
        if !ok, failure == nil { failure = .failed("Cannot keep the downloaded file.") }
        if size > maxBytes, failure == nil { failure = .tooLarge(limit: maxBytes) }
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        var outcome = failure
        if outcome == nil, let status = (task.response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
            outcome = .failed("HTTP \(status)")
        }
        if outcome == nil, let error {
            let timedOut = (error as? URLError)?.code == .timedOut
            outcome = timedOut ? .timedOut : .failed(error.localizedDescription)
        }
        if outcome == nil, !moved { outcome = .failed("The download left no file.") }
        let continuation = self.continuation
        self.continuation = nil
        let result = PNDownloadedFile(fileURL: destination, byteCount: written, claimedMIMEType: task.response?.mimeType)
        lock.unlock()
        if let outcome {
            try? FileManager.default.removeItem(at: destination)
            continuation?.resume(throwing: outcome)
        } else {
            continuation?.resume(returning: result)
        }
    }
}
