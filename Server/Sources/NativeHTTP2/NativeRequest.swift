import CurlHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request from its submission to its completion: what is sent, its deadline, and what has
/// been received on its stream.
///
/// `@unchecked Sendable`: made by the submitting thread and handed to the loop through its
/// locked queue; from then on touched only by the loop thread.
final class NativeRequest: @unchecked Sendable {
    let request: OutboundRequest
    let completion: @Sendable (Result<OutboundResponse, HTTPTransportError>) -> Void
    /// When the request fails unanswered (monotonic nanoseconds).
    let deadline: UInt64
    /// How much of the body the data provider has handed to nghttp2.
    var bodySent = 0
    /// The answer's `:status` (0 until it arrived).
    var status = 0
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// Times the server refused the request's stream unprocessed and it was sent again.
    var resends = 0

    init(
        request: OutboundRequest, completion: @escaping @Sendable (Result<OutboundResponse, HTTPTransportError>) -> Void,
        now: UInt64
    ) {
        self.request = request
        self.completion = completion
        deadline = now &+ UInt64(max(request.timeoutMilliseconds, 1)) &* 1_000_000
    }

    /// Forgets what a refused attempt received, before the request is sent again.
    func resetForResend() {
        bodySent = 0
        status = 0
        headers.removeAll()
        body.removeAll()
        resends += 1
    }
}

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`).
enum Monotonic {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

/// A growable byte buffer read from the front: the frames waiting to be written.
final class ByteBuffer {
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Bytes waiting.
    var count: Int { end - start }
    /// The first waiting byte.
    var readPointer: UnsafeMutablePointer<UInt8> { storage + start }

    func append(_ bytes: UnsafePointer<UInt8>, count: Int) {
        if end + count > capacity {
            if start > 0 {
                // Move what waits to the front first.
                let waiting = end - start
                if waiting > 0 { memmove(storage, storage + start, waiting) }
                start = 0
                end = waiting
            }
            if end + count > capacity {
                var grown = capacity * 2
                while end + count > grown { grown *= 2 }
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
                bigger.update(from: storage, count: end)
                storage.deallocate()
                storage = bigger
                capacity = grown
            }
        }
        (storage + end).update(from: bytes, count: count)
        end += count
    }

    /// Drops `count` bytes from the front.
    func consume(_ count: Int) {
        start += count
        if start == end {
            start = 0
            end = 0
        }
    }

    func removeAll() {
        start = 0
        end = 0
    }
}
