import Foundation

/// Why a download gave no usable file.
public enum PNDownloadError: Error, Sendable, Equatable {
    /// The body is larger than the cap; the partial file was deleted.
    case tooLarge(limit: Int)
    /// The deadline passed before the body arrived.
    case timedOut
    /// The server answered with an error status, or the connection failed.
    case failed(String)
}

/// A file a download left on disk.
public struct PNDownloadedFile: Sendable, Equatable {
    /// Where the body was written.
    public var fileURL: URL
    /// How many bytes were written.
    public var byteCount: Int
    /// The `Content-Type` the server claimed, if any (not trusted: the bytes are sniffed).
    public var claimedMIMEType: String?

    /// Creates a result.
    public init(fileURL: URL, byteCount: Int, claimedMIMEType: String? = nil) {
        self.fileURL = fileURL
        self.byteCount = byteCount
        self.claimedMIMEType = claimedMIMEType
    }
}

/// The body of an opened download, read piece by piece by the SDK.
///
/// The SDK chooses how much it takes at once (``PNMediaStreamer/readSize``) and writes each
/// piece to disk before it reads the next, so the most it holds is one piece (rule 16). An
/// implementation hands over at most the bytes asked for, buffers only a little ahead of the
/// reader, and gives up at the deadline it was opened with.
public protocol PNMediaBody: Sendable {
    /// The `Content-Type` the server claimed, if any.
    var claimedMIMEType: String? { get }
    /// The length the server announced (`Content-Length`), if any.
    var expectedLength: Int? { get }
    /// The next piece of the body, at most `maxLength` bytes; empty at the end of the body.
    /// Throws ``PNDownloadError`` when the connection fails, the deadline passes or the body
    /// was cancelled.
    func read(upTo maxLength: Int) async throws -> Data
    /// Stops the transfer and closes the connection; a pending or later read throws. Harmless
    /// once the body has ended.
    func cancel()
}

/// Opens attachments (avatars, campaign images) for the Notification Service Extension.
///
/// The port only opens the connection: the SDK's ``PNMediaStreamer`` reads the body with a
/// size it chooses, writes it to the destination file, enforces the size cap, the deadline and
/// cancellation, and deletes the partial file on failure. ``download(_:to:maxBytes:deadline:)``
/// runs that loop with the system clock.
public protocol PNMediaDownloading: Sendable {
    /// Sends the request for `url` and returns once the response's headers arrived.
    ///
    /// - Parameters:
    ///   - url: what to download.
    ///   - destination: the file the SDK writes the body to (a simulated server may watch it;
    ///     the live downloader does not touch it).
    ///   - deadline: when to give up, while waiting for the headers and for every later read.
    /// - Throws: ``PNDownloadError``: `.failed("HTTP 404")` for an error status, `.timedOut`.
    func open(_ url: URL, writingTo destination: URL, deadline: Date) async throws -> any PNMediaBody
}

extension PNMediaDownloading {
    /// Streams `url` into `destination` with the SDK's own loop (``PNMediaStreamer``): at most
    /// `maxBytes` (announced or counted), until `deadline`; the partial file is deleted on
    /// failure.
    public func download(_ url: URL, to destination: URL, maxBytes: Int, deadline: Date) async throws -> PNDownloadedFile {
        try await PNMediaStreamer().download(url, from: self, to: destination, maxBytes: maxBytes, deadline: deadline)
    }
}
