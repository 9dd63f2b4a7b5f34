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

/// Downloads attachments (avatars, campaign images) for the Notification Service Extension.
///
/// An implementation must stream the body to `destination` in chunks and never hold the whole
/// body in memory (the extension is killed above about 24 MB, rule 16); it stops and deletes
/// the file when more than `maxBytes` arrive, and gives up at `deadline` or when the task is
/// cancelled.
public protocol PNMediaDownloading: Sendable {
    /// Streams `url` into `destination`.
    func download(_ url: URL, to destination: URL, maxBytes: Int, deadline: Date) async throws -> PNDownloadedFile
}
