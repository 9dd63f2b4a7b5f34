import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CometChatPushNotificationsSwift

/// Opens attachments with a `URLSession` data task whose delegate keeps the pieces that arrived
/// until the SDK reads them. The buffer is bounded: the task is suspended while it holds more
/// than two of the reader's read sizes and resumed when the reader drains it, so memory stays
/// flat whatever the file's size (rule 16). (Not on Linux: swift-corelibs-foundation cannot
/// pause a transfer.) A timer of its own cancels the transfer at the
/// deadline (the session's resource timeout is not enough: swift-corelibs-foundation does not
/// honour it while a server trickles bytes).
public struct PNURLSessionDownloader: PNMediaDownloading {
    /// Creates the downloader.
    public init() {}

    /// Sends the request and returns the body once the headers arrived.
    public func open(_ url: URL, writingTo destination: URL, deadline: Date) async throws -> any PNMediaBody {
        let timeout = deadline.timeIntervalSinceNow
        guard timeout > 0, !Task.isCancelled else { throw PNDownloadError.timedOut }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = timeout
        configuration.timeoutIntervalForRequest = min(timeout, 15)
        configuration.urlCache = nil
        let body = URLSessionBody()
        let session = URLSession(configuration: configuration, delegate: body, delegateQueue: nil)
        let expiry = DispatchWorkItem { body.fail(.timedOut) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: expiry)
        body.attach(session: session, task: session.dataTask(with: url), expiry: expiry)
        try await withTaskCancellationHandler {
            try await body.waitForResponse()
        } onCancel: {
            body.fail(.timedOut)
        }
        return body
    }
}

/// One data task's body: the pieces received and not yet read, the reader waiting for them,
/// and how the transfer ended.
final class URLSessionBody: NSObject, URLSessionDataDelegate, PNMediaBody, @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock`.
    private let lock = NSLock()
    private var session: URLSession?
    private var task: URLSessionDataTask?
    private var expiry: DispatchWorkItem?
    private var pieces: [Data] = []
    private var buffered = 0
    private var readSize = PNMediaStreamer.defaultReadSize
    private var suspended = false
    private var ended = false
    private var failure: PNDownloadError?
    private var responded = false
    private var responseWaiter: CheckedContinuation<Void, Error>?
    private var reader: (maxLength: Int, continuation: CheckedContinuation<Data, Error>)?
    private var peak = 0
    private var pauses = 0
    private var mimeType: String?
    private var length: Int?

    /// Runs `body` under `lock` (`NSLock.withLock` needs iOS 16).
    private func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Whether the task is suspended while the reader is behind. Apple's `URLSession` pauses a
    /// data task mid-transfer; swift-corelibs-foundation (Linux, where the SDK only runs in
    /// tests) traps when a suspended task receives data, so there the buffer is not bounded.
    #if canImport(FoundationNetworking)
    static let suspendsWhenBehind = false
    #else
    static let suspendsWhenBehind = true
    #endif

    /// The most bytes buffered at once (for tests).
    var peakBufferedBytes: Int { locked { peak } }
    /// How many times the task was suspended because the reader fell behind (for tests).
    var suspensions: Int { locked { pauses } }

    var claimedMIMEType: String? { locked { mimeType } }
    var expectedLength: Int? { locked { length } }

    func attach(session: URLSession, task: URLSessionDataTask, expiry: DispatchWorkItem) {
        locked {
            self.session = session
            self.task = task
            self.expiry = expiry
        }
    }

    /// Starts the task and returns when the headers arrived, or throws how it failed first.
    func waitForResponse() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let (task, outcome) = locked { () -> (URLSessionDataTask?, Result<Void, Error>?) in
                if let failure { return (nil, .failure(failure)) }
                if responded { return (nil, .success(())) }
                responseWaiter = continuation
                return (self.task, nil)
            }
            if let outcome { continuation.resume(with: outcome) } else { task?.resume() }
        }
    }

    func read(upTo maxLength: Int) async throws -> Data {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, Error>) in
            let (outcome, resumeTask) = locked { () -> (Result<Data, Error>?, URLSessionDataTask?) in
                readSize = max(1, maxLength)
                if buffered > 0 {
                    let piece = take(maxLength)
                    return (.success(piece), resumeIfDrained())
                }
                if let failure { return (.failure(failure), nil) }
                if ended { return (.success(Data()), nil) }
                reader = (maxLength, continuation)
                return (nil, resumeIfDrained())
            }
            resumeTask?.resume()
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    func cancel() { fail(.failed("The download was cancelled.")) }

    /// Ends the transfer with `reason` (unless it already ended): wakes the waiters and closes
    /// the connection.
    func fail(_ reason: PNDownloadError) {
        let (task, session, waiters) = locked {
            () -> (URLSessionDataTask?, URLSession?, (CheckedContinuation<Void, Error>?, CheckedContinuation<Data, Error>?)) in
            if failure == nil, !ended { failure = reason }
            pieces = []
            buffered = 0
            let waiters = (responseWaiter, reader?.continuation)
            responseWaiter = nil
            reader = nil
            expiry?.cancel()
            return (self.task, self.session, waiters)
        }
        task?.cancel()
        session?.invalidateAndCancel()
        waiters.0?.resume(throwing: failure ?? reason)
        waiters.1?.resume(throwing: failure ?? reason)
    }

    /// Takes up to `maxLength` buffered bytes. Call with `lock` held.
    private func take(_ maxLength: Int) -> Data {
        var piece = Data()
        while !pieces.isEmpty, piece.count < maxLength {
            let first = pieces[0]
            let count = min(first.count, maxLength - piece.count)
            piece.append(first.prefix(count))
            if count == first.count {
                pieces.removeFirst()
            } else {
                pieces[0] = first.dropFirst(count)
            }
        }
        buffered -= piece.count
        return piece
    }

    /// The task to resume when the reader drained the buffer below one read size. Call with
    /// `lock` held.
    private func resumeIfDrained() -> URLSessionDataTask? {
        guard suspended, buffered <= readSize, failure == nil else { return nil }
        suspended = false
        return task
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        guard (200..<300).contains(status) else {
            completionHandler(.cancel)
            fail(.failed("HTTP \(status)"))
            return
        }
        let waiter = locked { () -> CheckedContinuation<Void, Error>? in
            responded = true
            mimeType = response.mimeType
            length = response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil
            defer { responseWaiter = nil }
            return responseWaiter
        }
        completionHandler(.allow)
        waiter?.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (handOver, suspend) = locked { () -> ((CheckedContinuation<Data, Error>, Data)?, Bool) in
            guard failure == nil, !data.isEmpty else { return (nil, false) }
            pieces.append(data)
            buffered += data.count
            peak = max(peak, buffered)
            var handOver: (CheckedContinuation<Data, Error>, Data)?
            if let reader {
                handOver = (reader.continuation, take(reader.maxLength))
                self.reader = nil
            }
            // Backpressure: the reader is behind by more than two reads; wait for it.
            let suspend = Self.suspendsWhenBehind && !suspended && buffered > 2 * readSize
            if suspend {
                suspended = true
                pauses += 1
            }
            return (handOver, suspend)
        }
        if suspend { dataTask.suspend() }
        handOver.map { $0.0.resume(returning: $0.1) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error, locked({ failure == nil }) {
            let timedOut = (error as? URLError)?.code == .timedOut
            fail(timedOut ? .timedOut : .failed(error.localizedDescription))
            return
        }
        let (reader, session) = locked { () -> (CheckedContinuation<Data, Error>?, URLSession?) in
            if failure == nil { ended = true }
            expiry?.cancel()
            defer { self.reader = nil }
            return (self.reader?.continuation, self.session)
        }
        session?.finishTasksAndInvalidate()
        // The buffer is empty whenever a reader waits.
        reader?.resume(returning: Data())
    }
}
