import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsChat

/// Serves avatars and campaign images to the Notification Service Extension: generated files
/// streamed to disk in chunks on the simulated clock, which can be slow, oversized, stalled or
/// of the wrong type. It honours the size cap, the deadline and cancellation as the live
/// downloader does, and records what it served.
public final class SimulatedMediaServer: PNMediaDownloading, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.
    private struct State {
        var files: [URL: SimulatedMedia] = [:]
        var requests: [URL] = []
        var stalled = 0
        var largestChunk = 0
    }
    private let state = PNLocked(State())
    private let clock: PNClock

    /// Creates an empty server on `clock`.
    public init(clock: PNClock) { self.clock = clock }

    /// Serves `media` at `url`.
    public func serve(_ url: String, _ media: SimulatedMedia) {
        guard let url = URL(string: url) else { return }
        state.withLock { $0.files[url] = media }
    }

    /// Every URL asked for, in order.
    public var requests: [URL] { state.withLock { $0.requests } }
    /// Downloads waiting on a stalled connection now.
    public var stalledDownloads: Int { state.withLock { $0.stalled } }
    /// The largest chunk handed over at once, in bytes: the most a download holds in memory.
    public var largestChunk: Int { state.withLock { $0.largestChunk } }

    /// Streams the file into `destination` chunk by chunk.
    public func download(_ url: URL, to destination: URL, maxBytes: Int, deadline: Date) async throws -> PNDownloadedFile {
        let media = state.withLock { state -> SimulatedMedia? in
            state.requests.append(url)
            return state.files[url]
        }
        guard let media else { throw PNDownloadError.failed("HTTP 404") }
        guard media.status == 200 else { throw PNDownloadError.failed("HTTP \(media.status)") }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: destination)
        else { throw PNDownloadError.failed("Cannot create the file.") }
        var written = 0
        do {
            defer { try? handle.close() }
            let header = media.header()
            let chunkSize = max(1, media.chunkSize)
            var chunk = [UInt8](repeating: 0, count: chunkSize)
            while written < media.size {
                if let stall = media.stallsAfter, written >= stall { try await waitForCancellation() }
                if media.secondsPerChunk > 0 {
                    // Like a live request timeout, give up at the deadline rather than after the chunk.
                    let left = deadline.timeIntervalSince(clock.now())
                    if left < media.secondsPerChunk {
                        try await clock.sleep(seconds: max(0, left))
                        throw PNDownloadError.timedOut
                    }
                    try await clock.sleep(seconds: media.secondsPerChunk)
                }
                try Task.checkCancellation()
                if clock.now() > deadline { throw PNDownloadError.timedOut }
                let count = min(chunkSize, media.size - written)
                if written + count > maxBytes { throw PNDownloadError.tooLarge(limit: maxBytes) }
                for index in 0..<count {
                    let position = written + index
                    chunk[index] = position < header.count ? header[position] : UInt8(truncatingIfNeeded: position)
                }
                handle.write(Data(chunk[0..<count]))
                written += count
                state.withLock { $0.largestChunk = max($0.largestChunk, count) }
            }
        } catch {
            try? FileManager.default.removeItem(at: destination)
            if error is CancellationError { throw PNDownloadError.timedOut }
            throw error
        }
        return PNDownloadedFile(fileURL: destination, byteCount: written, claimedMIMEType: media.claimedMIMEType)
    }

    /// A connection that sends nothing more: returns only by throwing when the task is cancelled.
    private func waitForCancellation() async throws {
        state.withLock { $0.stalled += 1 }
        defer { state.withLock { $0.stalled -= 1 } }
        while true {
            try Task.checkCancellation()
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}
