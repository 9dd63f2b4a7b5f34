import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CometChatPushNotificationsSwift

/// Downloads attachments with `URLSession`, writing each chunk to disk as it arrives: memory
/// stays at one chunk whatever the file's size (rule 16). Stops at the size cap and at the
/// deadline.
public struct PNURLSessionDownloader: PNMediaDownloading {
    /// Creates the downloader.
    public init() {}

    /// Streams `url` into `destination`.
    public func download(_ url: URL, to destination: URL, maxBytes: Int, deadline: Date) async throws -> PNDownloadedFile {
        let timeout = deadline.timeIntervalSinceNow
        guard timeout > 0 else { throw PNDownloadError.timedOut }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: destination)
        else { throw PNDownloadError.failed("Cannot create \(destination.lastPathComponent).") }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = timeout
        configuration.timeoutIntervalForRequest = min(timeout, 15)
        configuration.urlCache = nil
        let receiver = StreamingReceiver(handle: handle, destination: destination, maxBytes: maxBytes)
        let session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                receiver.start(session.dataTask(with: url), continuation: continuation)
            }
        } onCancel: {
            receiver.cancel(.timedOut)
        }
    }
}

/// Receives one download's chunks and writes them to a file.
private final class StreamingReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock`.
    private let lock = NSLock()
    private let handle: FileHandle
    private let destination: URL
    private let maxBytes: Int
    private var written = 0
    private var failure: PNDownloadError?
    private var task: URLSessionDataTask?
    private var continuation: CheckedContinuation<PNDownloadedFile, Error>?

    init(handle: FileHandle, destination: URL, maxBytes: Int) {
        self.handle = handle
        self.destination = destination
        self.maxBytes = maxBytes
    }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<PNDownloadedFile, Error>) {
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

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        if failure == nil, let status = (dataTask.response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
            failure = .failed("HTTP \(status)")
        }
        if failure == nil, written + data.count > maxBytes { failure = .tooLarge(limit: maxBytes) }
        if failure == nil {
            handle.write(data)
            written += data.count
        }
        let stop = failure != nil
        lock.unlock()
        if stop { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        try? handle.close()
        var outcome = failure
        if outcome == nil, let status = (task.response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
            outcome = .failed("HTTP \(status)")
        }
        if outcome == nil, let error {
            let timedOut = (error as? URLError)?.code == .timedOut
            outcome = timedOut ? .timedOut : .failed(error.localizedDescription)
        }
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
