import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsChat

/// Serves avatars and campaign images to the Notification Service Extension: generated files
/// that arrive on the simulated clock and can be slow, oversized, stalled or of the wrong type.
///
/// The SDK reads each body itself with a size it chooses; the server hands over at most that
/// many bytes per read (and at most the file's ``SimulatedMedia/chunkSize``). At every read it
/// measures what the client holds in memory: the bytes handed over that have not yet reached
/// the destination file on disk. The extension kills a run whose peak is over iOS's memory
/// limit (rule 16), whatever the server's own chunk size.
public final class SimulatedMediaServer: PNMediaDownloading, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.
    private struct State {
        var files: [URL: SimulatedMedia] = [:]
        var requests: [URL] = []
        var stalled = 0
        var peakHeldBytes = 0
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
    /// The most bytes a client held at once since ``resetPeakHeldBytes()``: handed over by a
    /// read and not yet in the destination file.
    public var peakHeldBytes: Int { state.withLock { $0.peakHeldBytes } }

    /// Starts a new measurement of ``peakHeldBytes`` (each extension run starts one).
    public func resetPeakHeldBytes() { state.withLock { $0.peakHeldBytes = 0 } }

    /// Opens `url`; the body's reads are measured against what the client wrote to `destination`.
    public func open(_ url: URL, writingTo destination: URL, deadline: Date) async throws -> any PNMediaBody {
        let media = state.withLock { state -> SimulatedMedia? in
            state.requests.append(url)
            return state.files[url]
        }
        guard let media else { throw PNDownloadError.failed("HTTP 404") }
        guard media.status == 200 else { throw PNDownloadError.failed("HTTP \(media.status)") }
        return Body(server: self, media: media, destination: destination, deadline: deadline)
    }

    /// Records that a client holds `bytes` now.
    fileprivate func held(_ bytes: Int) { state.withLock { $0.peakHeldBytes = max($0.peakHeldBytes, bytes) } }

    fileprivate var serverClock: PNClock { clock }

    /// A connection that sends nothing more: returns only by throwing when the task or the body
    /// is cancelled.
    fileprivate func waitForCancellation(_ cancelled: @Sendable () -> Bool) async throws {
        state.withLock { $0.stalled += 1 }
        defer { state.withLock { $0.stalled -= 1 } }
        while !cancelled() {
            try Task.checkCancellation()
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        throw PNDownloadError.failed("The download was cancelled.")
    }

    /// One opened body.
    private final class Body: PNMediaBody, @unchecked Sendable {
        // @unchecked: the mutable position is inside `position`.
        let server: SimulatedMediaServer
        let media: SimulatedMedia
        let destination: URL
        let deadline: Date
        let header: [UInt8]
        /// Bytes 0, 1, …, 255, 0, 1, …: 64 KiB, plus 256 to start anywhere in the cycle.
        static let pattern: [UInt8] = (0..<(64 * 1024 + 256)).map { UInt8(truncatingIfNeeded: $0) }
        private let position = PNLocked(0)
        private let cancelled = PNLocked(false)

        init(server: SimulatedMediaServer, media: SimulatedMedia, destination: URL, deadline: Date) {
            self.server = server
            self.media = media
            self.destination = destination
            self.deadline = deadline
            header = media.header()
        }

        var claimedMIMEType: String? { media.claimedMIMEType }
        var expectedLength: Int? { media.size }

        func cancel() { cancelled.withLock { $0 = true } }

        func read(upTo maxLength: Int) async throws -> Data {
            let sent = position.current
            if cancelled.current { throw PNDownloadError.failed("The download was cancelled.") }
            guard sent < media.size else { return Data() }
            if let stall = media.stallsAfter, sent >= stall {
                let cancelled = self.cancelled
                try await server.waitForCancellation { cancelled.current }
            }
            if media.secondsPerChunk > 0 {
                // Like a live request timeout, give up at the deadline rather than after the chunk.
                let clock = server.serverClock
                let left = deadline.timeIntervalSince(clock.now())
                if left < media.secondsPerChunk {
                    try await clock.sleep(seconds: max(0, left))
                    throw PNDownloadError.timedOut
                }
                try await clock.sleep(seconds: media.secondsPerChunk)
            }
            if cancelled.current { throw PNDownloadError.failed("The download was cancelled.") }
            let count = min(max(1, maxLength), max(1, media.chunkSize), media.size - sent)
            // The filler is the offset's low byte: slice it from a precomputed cycle.
            var piece = Data(capacity: count)
            while piece.count < count {
                let start = (sent + piece.count) % 256
                let length = min(Self.pattern.count - 256, count - piece.count)
                piece.append(contentsOf: Self.pattern[start..<(start + length)])
            }
            for offset in sent..<max(sent, min(sent + count, header.count)) { piece[offset - sent] = header[offset] }
            position.withLock { $0 = sent + count }
            // What the client holds now: everything handed over that is not on disk yet.
            let onDisk = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
            server.held(sent + count - onDisk)
            return piece
        }
    }
}
