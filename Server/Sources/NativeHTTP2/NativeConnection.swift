import CNGHTTP2
import CSSL
import CurlHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TCP + TLS + HTTP/2 connection of a ``NativeLoop``: connecting, the TLS handshake, then
/// an nghttp2 client session whose frames are read and written through the TLS layer.
///
/// Touched only by its loop's thread.
final class NativeConnection {
    enum State {
        /// The TCP connection is being set up (`connect` returned `EINPROGRESS`).
        case connecting
        /// The TLS handshake runs.
        case handshaking
        /// HTTP/2 frames flow.
        case open
        case closed
    }

    unowned let loop: NativeLoop
    private(set) var state = State.connecting
    private(set) var fd: Int32 = -1
    private var ssl: OpaquePointer?
    private(set) var session: OpaquePointer?
    /// The addresses of the host still to try, the one being tried first.
    private var addresses: [[UInt8]]
    /// The requests on this connection's streams, by stream id.
    var streams: [Int32: NativeRequest] = [:]
    /// Whether a request on this connection was answered with anything but 403: the
    /// single-stream gate is open.
    var authenticated = false
    /// Whether any request on this connection was answered.
    var answeredAny = false
    /// The last stream id the server's GOAWAY says it processed (nil before a GOAWAY).
    var goawayLastStreamId: Int32?
    /// TLS wants the socket writable (a handshake step, or a write that did not fit).
    private(set) var wantsWrite = false
    /// Decrypted bytes may wait inside OpenSSL: read again without waiting for the socket.
    private(set) var readAgain = false
    /// When the connection attempt gives up, and when anything last arrived (monotonic ns).
    let connectDeadline: UInt64
    var lastReceived: UInt64
    /// When the unanswered PING was sent (nil when none is out).
    var pingSentAt: UInt64?
    /// Why the connection ended, for the requests it fails.
    private(set) var failure: String?
    private let output = ByteBuffer(capacity: 64 * 1024)

    init(loop: NativeLoop, addresses: [[UInt8]], now: UInt64) {
        self.loop = loop
        self.addresses = addresses
        connectDeadline = now &+ UInt64(max(loop.configuration.connectTimeoutMilliseconds, 1)) &* 1_000_000
        lastReceived = now
    }

    deinit { release() }

    /// Whether the connection takes new streams (open and no GOAWAY).
    var isUsable: Bool { state == .open && goawayLastStreamId == nil }

    /// Streams the connection may open now: one while the single-stream gate is closed, else up
    /// to the configured and the server's limits.
    var freeStreams: Int {
        guard isUsable, let session else { return 0 }
        if loop.configuration.singleStreamUntilAuthenticated && !authenticated { return max(0, 1 - streams.count) }
        let remote = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return max(0, min(loop.configuration.maxConcurrentStreams, remote) - streams.count)
    }

    // MARK: Connecting

    /// Starts connecting to the next address. False when none is left (`failure` says why).
    func connectNext() -> Bool {
        closeSocket()
        while !addresses.isEmpty {
            let address = addresses.removeFirst()
            let family = address.withUnsafeBytes { $0.load(as: sockaddr.self).sa_family }
            let socketFD = socket(
                Int32(family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socketFD >= 0 else {
                failure = "socket: \(String(cString: strerror(errno)))"
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let result = address.withUnsafeBytes {
                connect(socketFD, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
            }
            fd = socketFD
            if result == 0 { return startTLS() }
            if errno == EINPROGRESS {
                state = .connecting
                wantsWrite = true
                return true
            }
            failure = "connect: \(String(cString: strerror(errno)))"
            closeSocket()
        }
        return false
    }

    /// The socket became writable while connecting: the TCP connection is up or failed.
    /// False when every address failed.
    func finishConnect() -> Bool {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        if error != 0 {
            failure = "connect: \(String(cString: strerror(error)))"
            return connectNext()
        }
        return startTLS()
    }

    private func startTLS() -> Bool {
        guard let made = cssl_client(loop.tls, fd, loop.origin.host, loop.originIsAddress ? 1 : 0) else {
            failure = "TLS: could not set up the client"
            return false
        }
        ssl = made
        state = .handshaking
        return handshake()
    }

    /// Runs the TLS handshake as far as the socket allows. False when it failed (`failure`).
    func handshake() -> Bool {
        guard let ssl else { return false }
        wantsWrite = false
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            guard cssl_alpn_is_h2(ssl) == 1 else {
                failure = "TLS: the server did not choose HTTP/2 (ALPN h2)"
                return false
            }
            return startSession()
        }
        let error = SSL_get_error(ssl, result)
        if error == cssl_error_want_read() { return true }
        if error == cssl_error_want_write() {
            wantsWrite = true
            return true
        }
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            failure = "TLS: certificate not trusted: \(String(cString: X509_verify_cert_error_string(verify)))"
        } else {
            failure = "TLS handshake failed: \(Self.tlsErrorText(ssl: ssl, result: result))"
        }
        return false
    }

    static func tlsErrorText(ssl: OpaquePointer, result: Int32) -> String {
        var text = [CChar](repeating: 0, count: 256)
        cssl_error_text(&text, text.count)
        let message = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if !message.isEmpty { return message }
        if errno != 0 { return String(cString: strerror(errno)) }
        return "error \(SSL_get_error(ssl, result))"
    }

    private func startSession() -> Bool {
        var made: OpaquePointer?
        guard nghttp2_session_client_new(&made, loop.callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0,
            let made
        else {
            failure = "nghttp2: could not create the session"
            return false
        }
        session = made
        var settings = [
            cnghttp2_setting(cnghttp2_settings_enable_push(), 0),
            cnghttp2_setting(cnghttp2_settings_initial_window_size(), 1 << 20),
        ]
        _ = nghttp2_submit_settings(made, 0, &settings, settings.count)
        state = .open
        // The server's first frames may already sit decrypted inside OpenSSL.
        readAgain = true
        return true
    }

    // MARK: Reading and writing

    /// Reads what the socket holds and hands it to nghttp2 (whose callbacks answer requests).
    /// False when the connection ended (`failure`).
    func readAvailable(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, now: UInt64) -> Bool {
        guard state == .open, let ssl, let session else { return true }
        readAgain = false
        var total = 0
        while true {
            let count = SSL_read(ssl, buffer, Int32(capacity))
            if count > 0 {
                lastReceived = now
                total += Int(count)
                let handled = nghttp2_session_mem_recv(session, buffer, Int(count))
                if handled < 0 {
                    failure = "HTTP/2: \(String(cString: nghttp2_strerror(Int32(handled))))"
                    return false
                }
                if state != .open { return false }
                // Leave the rest for the next turn: write what the reads produced first.
                if total >= 1 << 20 {
                    readAgain = true
                    return true
                }
                continue
            }
            let error = SSL_get_error(ssl, count)
            if error == cssl_error_want_read() { return true }
            if error == cssl_error_want_write() {
                wantsWrite = true
                return true
            }
            if error == cssl_error_zero_return() {
                failure = "the server closed the connection"
            } else {
                let text = Self.tlsErrorText(ssl: ssl, result: count)
                failure = count == 0 || text.isEmpty ? "the server closed the connection" : "receive failed: \(text)"
            }
            return false
        }
    }

    /// Drains nghttp2's frames into the output buffer and writes it with one `SSL_write` (more
    /// when a write takes only part). False when the connection ended (`failure`).
    func flush() -> Bool {
        guard state == .open, let ssl, let session else { return true }
        while output.count < 256 * 1024 {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                failure = "HTTP/2: \(String(cString: nghttp2_strerror(Int32(count))))"
                return false
            }
            guard count > 0, let data else { break }
            output.append(data, count: count)
        }
        wantsWrite = false
        while output.count > 0 {
            let written = SSL_write(ssl, output.readPointer, Int32(min(output.count, Int(Int32.max))))
            if written > 0 {
                output.consume(Int(written))
                continue
            }
            let error = SSL_get_error(ssl, written)
            if error == cssl_error_want_write() || error == cssl_error_want_read() {
                wantsWrite = error == cssl_error_want_write()
                return true
            }
            failure = "send failed: \(Self.tlsErrorText(ssl: ssl, result: written))"
            return false
        }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            failure = "the HTTP/2 session ended"
            return false
        }
        return true
    }

    /// Whether nghttp2 or the output buffer holds frames to write.
    var hasOutput: Bool {
        guard state == .open, let session else { return false }
        return output.count > 0 || nghttp2_session_want_write(session) != 0
    }

    /// Sends a PING (keep-alive).
    func ping(now: UInt64) {
        guard state == .open, let session, pingSentAt == nil else { return }
        if nghttp2_submit_ping(session, 0, nil) == 0 { pingSentAt = now }
    }

    /// Resets a stream (its request's deadline passed).
    func cancel(streamId: Int32) {
        guard let session, state == .open else { return }
        _ = nghttp2_submit_rst_stream(session, 0, streamId, cnghttp2_cancel())
    }

    /// Ends the connection: frees the TLS and HTTP/2 state and closes the socket. Its streams
    /// are the loop's to fail or resend first.
    func close(reason: String? = nil) {
        if failure == nil { failure = reason }
        state = .closed
        release()
    }

    private func release() {
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
        closeSocket()
    }

    private func closeSocket() {
        if let ssl {
            SSL_free(ssl)
            self.ssl = nil
        }
        if fd >= 0 {
            closeDescriptor(fd)
            fd = -1
        }
    }
}

/// `close(2)` (a connection's own `close(reason:)` hides the C function's name inside it).
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
