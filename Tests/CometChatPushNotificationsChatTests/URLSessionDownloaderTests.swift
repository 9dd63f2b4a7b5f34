import Foundation
import Testing
@testable import CometChatPushNotificationsChat

/// The live downloader (`PNURLSessionDownloader`, a real `URLSession`) against a local HTTP
/// server that the test starts on 127.0.0.1: the size cap (announced and counted), the
/// deadline (a stalled and a trickling server), cancellation, error statuses and a
/// `Content-Length` that lies in both directions.
@Suite("Live downloader against a local HTTP server")
struct URLSessionDownloaderTests {
    let server: LocalHTTPServer
    let directory: URL

    init() throws {
        server = try LocalHTTPServer()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("downloader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Where a download of `name` goes.
    func destination(_ name: String = "file") -> URL { directory.appendingPathComponent(name) }

    /// The bytes the server sends for a body of `count` bytes.
    static func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0) }) }

    func fileExists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// A download's result, and how long it took in real time.
    struct Finished {
        var outcome: DownloadOutcome?
        var seconds: TimeInterval
        /// The file, if the download succeeded.
        var file: PNDownloadedFile? {
            if case .file(let file)? = outcome { return file }
            return nil
        }
        /// The error as the downloader's own type, if it failed with one.
        var downloadError: PNDownloadError? {
            if case .failed(let error, _)? = outcome { return error }
            return nil
        }
        /// Whether it failed, whatever the error.
        var failed: Bool {
            if case .failed? = outcome { return true }
            return false
        }
    }

    /// Runs a download in its own task and waits for it at most `watchdog` seconds, so a
    /// downloader that ignores its deadline fails the test instead of hanging it.
    func download(
        _ path: String, to destination: URL, maxBytes: Int = 1024 * 1024, deadline: TimeInterval = 20, watchdog: TimeInterval = 30,
        whileRunning: (@Sendable (Task<PNDownloadedFile, Error>) async -> Void)? = nil
    ) async -> Finished {
        let url = server.url(path)
        let start = Date()
        let until = start.addingTimeInterval(deadline)
        let task = Task { try await PNURLSessionDownloader().download(url, to: destination, maxBytes: maxBytes, deadline: until) }
        await whileRunning?(task)
        let box = OutcomeBox()
        Task { box.finish(DownloadOutcome(await task.result)) }
        let outcome = await box.wait(timeout: watchdog)
        if outcome == nil {
            Issue.record("the download did not return within \(watchdog) s")
            task.cancel()
        }
        return Finished(outcome: outcome, seconds: Date().timeIntervalSince(start))
    }

    /// Once the request reached the server, the client must have closed the connection. On a
    /// loaded machine the deadline can pass before the session even connects; then there is no
    /// connection to check.
    func expectHangUp(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        guard server.requests.contains(path) else { return }
        let outcome = await server.waitForOutcome(path)
        guard case .clientHungUp? = outcome else {
            Issue.record("the client did not hang up: \(String(describing: outcome))", sourceLocation: sourceLocation)
            return
        }
    }

    @Test("A body within the cap arrives whole on disk, with its claimed type")
    func wholeBody() async throws {
        server.route("/a.png", .init(bodyBytes: 300_000))
        let target = destination()
        let finished = await download("/a.png", to: target)
        let file = try #require(finished.file, "\(String(describing: finished.outcome))")
        #expect(file.fileURL == target)
        #expect(file.byteCount == 300_000)
        #expect(file.claimedMIMEType == "image/png")
        #expect(try Data(contentsOf: target) == Self.pattern(300_000))
    }

    /// Apple's URLSession only: swift-corelibs-foundation traps when a suspended data task
    /// receives data, so the downloader does not suspend there.
    @Test(
        "A reader that falls behind: the task pauses with about two reads buffered, resumes, and the bytes arrive whole",
        .enabled(if: URLSessionBody.suspendsWhenBehind))
    func backpressure() async throws {
        let size = 8 * 1024 * 1024
        let readSize = PNMediaStreamer.defaultReadSize
        server.route("/big", .init(bodyBytes: size))
        let body = try await PNURLSessionDownloader().open(
            server.url("/big"), writingTo: destination(), deadline: Date().addingTimeInterval(30))
        let live = try #require(body as? URLSessionBody)
        var received = try await body.read(upTo: readSize)
        // Fall behind: read on only once the transfer has paused.
        let until = Date().addingTimeInterval(10)
        while live.suspensions == 0, Date() < until { await Task.yield() }
        #expect(live.suspensions > 0, "the task was never suspended")
        while true {
            let piece = try await body.read(upTo: readSize)
            if piece.isEmpty { break }
            #expect(piece.count <= readSize)
            received.append(piece)
        }
        #expect(received == Self.pattern(size))
        // Two reads, plus what libcurl had already handed over when the task paused.
        #expect(live.peakBufferedBytes < 1024 * 1024, "buffered \(live.peakBufferedBytes) bytes")
    }

    @Test("A body of exactly the cap is kept")
    func exactlyTheCap() async throws {
        server.route("/cap", .init(bodyBytes: 200_000))
        let finished = await download("/cap", to: destination(), maxBytes: 200_000)
        #expect(finished.file?.byteCount == 200_000, "\(String(describing: finished.outcome))")
    }

    @Test("An announced length over the cap is refused at once, before the body arrives, and leaves no file")
    func announcedTooLarge() async throws {
        // 4 MB, sent slowly: a client that reads on would keep the connection for seconds
        server.route("/big", .init(bodyBytes: 4 * 1024 * 1024, pieceBytes: 16 * 1024, pauseMilliseconds: 20))
        let target = destination()
        let finished = await download("/big", to: target, maxBytes: 1024 * 1024)
        #expect(finished.downloadError == .tooLarge(limit: 1024 * 1024))
        #expect(!fileExists(target))
        guard case .clientHungUp(let sent)? = await server.waitForOutcome("/big") else {
            Issue.record("the client did not hang up")
            return
        }
        #expect(sent < 4 * 1024 * 1024)
    }

    @Test("Without a Content-Length, a body over the cap is stopped by counting, and leaves no file")
    func countedTooLarge() async throws {
        server.route("/stream", .init(length: .absent, bodyBytes: 4 * 1024 * 1024, pieceBytes: 16 * 1024, pauseMilliseconds: 20))
        let target = destination()
        let finished = await download("/stream", to: target, maxBytes: 256 * 1024)
        #expect(finished.downloadError == .tooLarge(limit: 256 * 1024))
        #expect(!fileExists(target))
        guard case .clientHungUp(let sent)? = await server.waitForOutcome("/stream") else {
            Issue.record("the client did not hang up")
            return
        }
        #expect(sent < 4 * 1024 * 1024)
    }

    @Test("Without a Content-Length, a body within the cap ends with the connection and is kept")
    func closeDelimited() async throws {
        server.route("/stream", .init(length: .absent, bodyBytes: 100_000))
        let target = destination()
        let finished = await download("/stream", to: target)
        #expect(finished.file?.byteCount == 100_000, "\(String(describing: finished.outcome))")
        #expect(try Data(contentsOf: target) == Self.pattern(100_000))
    }

    @Test("A Content-Length that promises more than arrives is a failure, not a truncated file")
    func fewerBytesThanAnnounced() async throws {
        server.route("/short", .init(length: .claims(200_000), bodyBytes: 120_000))
        let target = destination()
        let finished = await download("/short", to: target)
        #expect(finished.failed, "\(String(describing: finished.outcome))")
        #expect(!fileExists(target))
    }

    @Test("A Content-Length that promises less than is sent keeps only the announced bytes, never more than the cap")
    func moreBytesThanAnnounced() async throws {
        // 2 MB sent against an announced 100,000 bytes and a 1 MB cap
        server.route("/long", .init(length: .claims(100_000), bodyBytes: 2 * 1024 * 1024))
        let target = destination()
        let finished = await download("/long", to: target, maxBytes: 1024 * 1024)
        let file = try #require(finished.file, "\(String(describing: finished.outcome))")
        #expect(file.byteCount == 100_000)
        #expect(try Data(contentsOf: target) == Self.pattern(100_000))
    }

    @Test("A server that stalls in the middle of the body: timedOut at the deadline, no file, connection closed")
    func stallMidBody() async throws {
        server.route("/stall", .init(length: .claims(500_000), bodyBytes: 100_000, stallAfterBody: true))
        let target = destination()
        let finished = await download("/stall", to: target, deadline: 3)
        #expect(finished.downloadError == .timedOut)
        #expect(finished.seconds < 20, "at the deadline, not \(finished.seconds) s later")
        #expect(!fileExists(target))
        await expectHangUp("/stall")
    }

    @Test("A server that accepts and never answers: timedOut at the deadline")
    func stallBeforeHeaders() async throws {
        server.route("/silent", .init(stallBeforeHeaders: true))
        let target = destination()
        let finished = await download("/silent", to: target, deadline: 3)
        #expect(finished.downloadError == .timedOut)
        #expect(finished.seconds < 20, "at the deadline, not \(finished.seconds) s later")
        #expect(!fileExists(target))
        await expectHangUp("/silent")
    }

    @Test("A server that trickles bytes and never goes idle is still stopped at the deadline")
    func trickleIsStoppedAtTheDeadline() async throws {
        // 1 KB every 50 ms: never idle long enough for a request timeout, 10 MB would take minutes
        server.route("/trickle", .init(bodyBytes: 10 * 1024 * 1024, pieceBytes: 1024, pauseMilliseconds: 50))
        let target = destination()
        let finished = await download("/trickle", to: target, maxBytes: 20 * 1024 * 1024, deadline: 3)
        #expect(finished.downloadError == .timedOut)
        #expect(finished.seconds < 20, "at the deadline, not \(finished.seconds) s later")
        #expect(!fileExists(target))
        await expectHangUp("/trickle")
    }

    @Test("A deadline already past: no request at all")
    func deadlinePassed() async throws {
        server.route("/late", .init(bodyBytes: 10))
        let finished = await download("/late", to: destination(), deadline: -1)
        #expect(finished.downloadError == .timedOut)
        #expect(server.requests.isEmpty)
    }

    @Test("Cancelling the task stops a stalled download at once and closes the connection")
    func cancellation() async throws {
        server.route("/stall", .init(length: .claims(500_000), bodyBytes: 50_000, stallAfterBody: true))
        let target = destination()
        let server = self.server
        let finished = await download("/stall", to: target, deadline: 60) { task in
            #expect(await server.waitForRequest("/stall"))
            task.cancel()
        }
        #expect(finished.failed, "\(String(describing: finished.outcome))")
        // Well before the 60 s deadline (room for a loaded machine)
        #expect(finished.seconds < 30)
        #expect(!fileExists(target))
        await expectHangUp("/stall")
    }

    @Test("A task cancelled before the download starts returns at once")
    func cancelledBeforeStart() async throws {
        server.route("/never", .init(bodyBytes: 10))
        let target = destination()
        let url = server.url("/never")
        let box = OutcomeBox()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await PNURLSessionDownloader().download(
                url, to: target, maxBytes: 1024, deadline: Date().addingTimeInterval(60))
        }
        Task { box.finish(DownloadOutcome(await task.result)) }
        let outcome = await box.wait(timeout: 10)
        #expect(outcome != nil, "the download of a cancelled task did not return")
        if case .file? = outcome { Issue.record("a cancelled download succeeded") }
        task.cancel()
        #expect(!fileExists(target))
    }

    @Test("An error status is a failure and its body is not kept", arguments: [404, 500])
    func errorStatus(status: Int) async throws {
        server.route("/missing", .init(status: status, contentType: "text/html", bodyBytes: 2_000))
        let target = destination()
        let finished = await download("/missing", to: target)
        #expect(finished.downloadError == .failed("HTTP \(status)"))
        #expect(!fileExists(target))
    }
}

/// How a download ended, in a form that can cross threads.
enum DownloadOutcome: Sendable, CustomStringConvertible {
    case file(PNDownloadedFile)
    /// The downloader's error, if it was one, and the error's text.
    case failed(PNDownloadError?, String)

    init(_ result: Result<PNDownloadedFile, Error>) {
        switch result {
        case .success(let file): self = .file(file)
        case .failure(let error): self = .failed(error as? PNDownloadError, String(describing: error))
        }
    }

    var description: String {
        switch self {
        case .file(let file): return "a file of \(file.byteCount) bytes"
        case .failed(_, let text): return "failed: \(text)"
        }
    }
}

/// An outcome handed from a task to a waiting test, with a deadline.
final class OutcomeBox: @unchecked Sendable {
    // @unchecked: `value` is guarded by `condition`.
    private let condition = NSCondition()
    private var value: DownloadOutcome?

    func finish(_ outcome: DownloadOutcome) {
        condition.withLock {
            value = outcome
            condition.broadcast()
        }
    }

    /// The outcome, or nil after `timeout` seconds.
    func wait(timeout: TimeInterval) async -> DownloadOutcome? {
        await offThePool {
            let deadline = Date().addingTimeInterval(timeout)
            self.condition.lock()
            defer { self.condition.unlock() }
            while self.value == nil, self.condition.wait(until: deadline) {}
            return self.value
        }
    }
}
