import CNGHTTP2
import CSSL
import CSystem
import CurlHTTP
import ServerSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread of a ``NativeHTTP2Client``: its connection (and those draining after a GOAWAY),
/// the requests waiting for a stream, deadlines, pings and the reconnection back-off.
///
/// `@unchecked Sendable`: everything but `queue` (a `Mutex`), the atomics and the eventfd is
/// touched only by the loop thread; the TLS context, the callbacks and the eventfd live as long
/// as the loop object and are freed in `deinit`, after the thread ended.
final class NativeLoop: @unchecked Sendable {
    struct Queue {
        var requests: [NativeRequest] = []
        var stopped = false
    }

    let origin: Origin
    /// Whether the origin's host is an IP address (verified as such; no SNI).
    let originIsAddress: Bool
    let configuration: NativeHTTP2Client.Configuration
    let queue = Mutex(Queue())
    let inFlight = Atomic<Int>(0)
    let answered = Atomic<Bool>(false)
    let connectionsOpened = Atomic<Int>(0)
    /// True while the loop sleeps in `poll`: only then does a submission write to the eventfd.
    private let sleeping = Atomic<Bool>(false)
    private let wakeFD: Int32
    /// The TLS client context (`SSL_CTX`).
    let tls: OpaquePointer
    /// The nghttp2 callbacks every session of the loop uses.
    let callbacks: OpaquePointer

    // The loop thread's own state.
    private var intake: [NativeRequest] = []
    /// Requests waiting for a stream, oldest first, from `pendingHead` on.
    private var pending: [NativeRequest?] = []
    private var pendingHead = 0
    /// The connection new streams go to.
    private var current: NativeConnection?
    /// Connections that received GOAWAY, until their last streams ended.
    private var draining: [NativeConnection] = []
    private var connectFailures = 0
    /// No connection attempt before this (monotonic ns): the back-off after failed attempts.
    private var holdUntil: UInt64 = 0
    /// The earliest deadline of a request the loop holds (or later: checked when it passes).
    private var nextDeadline = UInt64.max
    private let headerBlock = HeaderBlock()
    private let readBuffer: UnsafeMutablePointer<UInt8>
    private static let readCapacity = 64 * 1024
    private var pollFDs: [pollfd] = []
    private var polled: [NativeConnection] = []

    init(origin: Origin, configuration: NativeHTTP2Client.Configuration) throws {
        self.origin = origin
        self.configuration = configuration
        var v4 = in_addr()
        var v6 = in6_addr()
        originIsAddress = inet_pton(AF_INET, origin.host, &v4) == 1 || inet_pton(AF_INET6, origin.host, &v6) == 1
        guard let context = cssl_client_context(configuration.caFile) else {
            throw NativeHTTP2Client.OriginError(
                description: "TLS: could not make the client context (CA file \(configuration.caFile ?? "system store"))")
        }
        guard let made = NativeCallbacks.make() else {
            SSL_CTX_free(context)
            throw NativeHTTP2Client.OriginError(description: "nghttp2: could not make the callbacks")
        }
        let fd = csystem_eventfd()
        guard fd >= 0 else {
            SSL_CTX_free(context)
            nghttp2_session_callbacks_del(made)
            throw NativeHTTP2Client.OriginError(description: "eventfd: \(String(cString: strerror(errno)))")
        }
        tls = context
        callbacks = made
        wakeFD = fd
        readBuffer = .allocate(capacity: Self.readCapacity)
    }

    deinit {
        closeDescriptor(wakeFD)
        SSL_CTX_free(tls)
        nghttp2_session_callbacks_del(callbacks)
        readBuffer.deallocate()
    }

    // MARK: Any thread

    func submit(_ request: OutboundRequest, completion: @escaping @Sendable (Result<OutboundResponse, HTTPTransportError>) -> Void) {
        guard request.url.utf8.starts(with: origin.prefix.utf8) else {
            return completion(
                .failure(
                    HTTPTransportError(code: 3, message: "the URL is not of \(origin.prefix)", isConnectFailure: true, client: "h2")))
        }
        let item = NativeRequest(request: request, completion: completion, now: Monotonic.now())
        inFlight.add(1, ordering: .relaxed)
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.stopped else { return false }
            queue.requests.append(item)
            return true
        }
        guard accepted else {
            inFlight.subtract(1, ordering: .relaxed)
            return completion(.failure(Self.stoppedError))
        }
        if sleeping.exchange(false, ordering: .acquiringAndReleasing) { wake() }
    }

    func stop() {
        let first = queue.withLock { queue -> Bool in
            defer { queue.stopped = true }
            return !queue.stopped
        }
        if first { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    static let stoppedError = HTTPTransportError(code: -1, message: "client stopped", isConnectFailure: false, client: "h2")

    // MARK: The loop

    func run() {
        csystem_block_sigpipe()
        while true {
            let stopped = queue.withLock { queue -> Bool in
                swap(&queue.requests, &intake)
                return queue.stopped
            }
            for request in intake {
                pending.append(request)
                nextDeadline = min(nextDeadline, request.deadline)
            }
            intake.removeAll(keepingCapacity: true)
            if stopped { break }
            let now = Monotonic.now()
            if now >= nextDeadline { expire(now: now) }
            maintain(now: now)
            if let current, current.isUsable { assignStreams(to: current) }
            if let current, current.state == .open, !current.flush() { lost(current, now: now) }
            for connection in draining where connection.state == .open {
                if !connection.flush() { lost(connection, now: now) }
            }
            waitAndHandle()
        }
        shutDown()
    }

    /// Polls the eventfd and the sockets, then reads, connects or shakes hands where they are ready.
    private func waitAndHandle() {
        pollFDs.removeAll(keepingCapacity: true)
        polled.removeAll(keepingCapacity: true)
        pollFDs.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
        var immediate = false
        eachConnection { connection in
            guard connection.fd >= 0 else { return }
            var events = Int16(POLLIN)
            switch connection.state {
            case .connecting: events = Int16(POLLOUT)
            case .handshaking: if connection.wantsWrite { events |= Int16(POLLOUT) }
            case .open:
                if connection.wantsWrite || connection.hasOutput { events |= Int16(POLLOUT) }
                if connection.readAgain { immediate = true }
            case .closed: return
            }
            pollFDs.append(pollfd(fd: connection.fd, events: events, revents: 0))
            polled.append(connection)
        }
        let now = Monotonic.now()
        var timeout: UInt64 = 1_000_000_000
        if pendingCount > 0, current == nil, holdUntil > now { timeout = min(timeout, holdUntil - now) }
        if nextDeadline > now { timeout = min(timeout, nextDeadline - now) } else { timeout = 0 }
        if let due = pingDue(), due > now { timeout = min(timeout, due - now) }
        sleeping.store(true, ordering: .sequentiallyConsistent)
        if immediate || !queue.withLock({ $0.requests.isEmpty && !$0.stopped }) { timeout = 0 }
        let milliseconds = Int32((timeout + 999_999) / 1_000_000)
        let ready = poll(&pollFDs, nfds_t(pollFDs.count), milliseconds)
        sleeping.store(false, ordering: .sequentiallyConsistent)
        guard ready >= 0 || immediate else { return }
        if pollFDs[0].revents != 0 {
            var value: UInt64 = 0
            _ = read(wakeFD, &value, 8)
        }
        let after = Monotonic.now()
        for (index, connection) in polled.enumerated() {
            let events = ready > 0 ? pollFDs[index + 1].revents : 0
            switch connection.state {
            case .connecting:
                if events != 0, !connection.finishConnect() { connectFailed(connection, now: after) }
            case .handshaking:
                if events != 0, !connection.handshake() { connectFailed(connection, now: after) }
            case .open:
                if events != 0 || connection.readAgain,
                    !connection.readAvailable(into: readBuffer, capacity: Self.readCapacity, now: after)
                {
                    lost(connection, now: after)
                }
            case .closed: break
            }
        }
    }

    private var pendingCount: Int { pending.count - pendingHead }

    /// Calls `body` with the current connection, then each draining one (no array made).
    private func eachConnection(_ body: (NativeConnection) -> Void) {
        if let current { body(current) }
        for connection in draining { body(connection) }
    }

    private func popPending() -> NativeRequest? {
        guard pendingHead < pending.count else { return nil }
        let request = pending[pendingHead]
        pending[pendingHead] = nil
        pendingHead += 1
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
        }
        return request
    }

    /// Puts a request back at the front of the waiting ones (sent again before the others).
    private func pushPendingFront(_ request: NativeRequest) {
        if pendingHead > 0 {
            pendingHead -= 1
            pending[pendingHead] = request
        } else {
            pending.insert(request, at: 0)
        }
        nextDeadline = min(nextDeadline, request.deadline)
    }

    /// When the current connection's next PING is due, or its unanswered PING ends it (nil: none).
    private func pingDue() -> UInt64? {
        guard configuration.pingIntervalMilliseconds > 0, let current, current.state == .open else { return nil }
        let interval = UInt64(configuration.pingIntervalMilliseconds) * 1_000_000
        if let sent = current.pingSentAt { return sent + max(interval, 5_000_000_000) + 1 }
        return current.lastReceived + interval
    }

    /// Connection attempts and their time limits, pings, and the end of drained connections.
    private func maintain(now: UInt64) {
        if let current, current.state == .connecting || current.state == .handshaking, now >= current.connectDeadline {
            current.close(reason: "connection attempt timed out after \(configuration.connectTimeoutMilliseconds) ms")
            connectFailed(current, now: now)
        }
        if pendingCount > 0, current == nil, now >= holdUntil { openConnection(now: now) }
        if configuration.pingIntervalMilliseconds > 0, let current, current.state == .open {
            let interval = UInt64(configuration.pingIntervalMilliseconds) * 1_000_000
            if let sent = current.pingSentAt {
                if now > sent, now - sent > max(interval, 5_000_000_000) {
                    current.close(reason: "no answer to PING")
                    lost(current, now: now)
                }
            } else if now > current.lastReceived, now - current.lastReceived >= interval {
                current.ping(now: now)
            }
        }
        if draining.contains(where: { $0.streams.isEmpty || $0.state == .closed }) {
            draining.removeAll { connection in
                guard connection.streams.isEmpty || connection.state == .closed else { return false }
                connection.close()
                return true
            }
        }
    }

    private func openConnection(now: UInt64) {
        connectionsOpened.add(1, ordering: .relaxed)
        let addresses: [[UInt8]]
        switch Self.resolve(host: origin.host, port: origin.port) {
        case .success(let found): addresses = found
        case .failure(let error):
            let connection = NativeConnection(loop: self, addresses: [], now: now)
            connection.close(reason: error.message)
            return connectFailed(connection, now: now, code: 6)
        }
        let connection = NativeConnection(loop: self, addresses: addresses, now: now)
        current = connection
        if !connection.connectNext() { connectFailed(connection, now: now) }
    }

    /// Why a host name did not resolve.
    struct ResolveError: Error {
        let message: String
    }

    /// The socket addresses of `host` (getaddrinfo, on the loop thread).
    static func resolve(host: String, port: Int) -> Result<[[UInt8]], ResolveError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            return .failure(ResolveError(message: "could not resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                addresses.append(Array(UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen))))
            }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(ResolveError(message: "could not resolve \(host): no address")) : .success(addresses)
    }

    // MARK: Streams

    /// Opens streams for waiting requests as far as the connection allows.
    private func assignStreams(to connection: NativeConnection) {
        var free = connection.freeStreams
        while free > 0, let request = popPending() {
            if submit(request, on: connection) { free -= 1 }
            if !connection.isUsable { break }
        }
    }

    /// Submits `request` on a stream of `connection`. False when it did not get one (failed, or
    /// put back when the connection has no stream ids left).
    private func submit(_ request: NativeRequest, on connection: NativeConnection) -> Bool {
        guard let session = connection.session else {
            pushPendingFront(request)
            return false
        }
        // The URL starts with the origin (checked when it was submitted).
        let path = request.request.url.utf8.dropFirst(origin.prefix.utf8.count)
        let streamId = headerBlock.withHeaders(of: request.request, path: path, origin: origin) { headers, count in
            if request.request.body != nil {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: NativeCallbacks.readBody)
                return nghttp2_submit_request(session, nil, headers, count, &provider, nil)
            }
            return nghttp2_submit_request(session, nil, headers, count, nil, nil)
        }
        guard streamId > 0 else {
            if streamId == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue {
                // Every stream id of the connection was used: a new connection takes over.
                connection.goawayLastStreamId = Int32.max
                retire(connection)
                pushPendingFront(request)
                return false
            }
            fail(request, code: 16, message: "HTTP/2: \(String(cString: nghttp2_strerror(streamId)))", connect: true)
            return false
        }
        connection.streams[streamId] = request
        return true
    }

    /// Takes `connection` out of use for new streams; it is closed once its streams ended.
    private func retire(_ connection: NativeConnection) {
        if current === connection {
            current = nil
            draining.append(connection)
        }
    }

    /// nghttp2 closed a stream: the answer is complete, or the server refused or reset it.
    func streamClosed(_ request: NativeRequest, errorCode: UInt32, on connection: NativeConnection) {
        if errorCode == cnghttp2_no_error(), request.status >= 200 {
            connection.answeredAny = true
            if request.status != 403 { connection.authenticated = true }
            connectFailures = 0
            answered.store(true, ordering: .relaxed)
            inFlight.subtract(1, ordering: .relaxed)
            request.completion(.success(OutboundResponse(status: request.status, headers: request.headers, body: request.body)))
            return
        }
        if errorCode == cnghttp2_refused_stream(), request.status == 0 {
            return resendOrFail(request, reason: "the server refused the stream (not processed)")
        }
        answered.store(false, ordering: .relaxed)
        let message =
            errorCode == cnghttp2_no_error()
            ? "the stream ended without an answer" : "the server reset the stream (HTTP/2 error \(errorCode))"
        fail(request, code: 92, message: message, connect: false)
    }

    /// A request the server did not process (refused stream, beyond a GOAWAY's last stream):
    /// sent again, on a new connection when this one is draining, up to
    /// `maxRefusedResends` times.
    func resendOrFail(_ request: NativeRequest, reason: String) {
        guard request.resends < configuration.maxRefusedResends else {
            return fail(request, code: 56, message: "\(reason), \(request.resends + 1) times", connect: true)
        }
        request.resetForResend()
        pushPendingFront(request)
    }

    /// The server sent GOAWAY: no new streams on the connection; those above `lastStreamId` are
    /// closed by nghttp2 as refused (and sent again); the rest may still be answered.
    func goawayReceived(lastStreamId: Int32, on connection: NativeConnection) {
        connection.goawayLastStreamId = min(connection.goawayLastStreamId ?? Int32.max, lastStreamId)
        retire(connection)
    }

    /// A response body passed `maxResponseBytes`: the stream is reset and the request fails.
    func responseTooLarge(_ request: NativeRequest, streamId: Int32, on connection: NativeConnection) {
        connection.streams[streamId] = nil
        connection.cancel(streamId: streamId)
        fail(request, code: 63, message: "response larger than \(configuration.maxResponseBytes) bytes", connect: false)
    }

    /// Fails requests whose deadline passed: waiting ones and those on streams (reset).
    private func expire(now: UInt64) {
        nextDeadline = .max
        var kept: [NativeRequest?] = []
        var expired: [NativeRequest] = []
        for index in pendingHead..<pending.count {
            guard let request = pending[index] else { continue }
            if request.deadline <= now {
                expired.append(request)
            } else {
                kept.append(request)
                nextDeadline = min(nextDeadline, request.deadline)
            }
        }
        if !expired.isEmpty {
            pending = kept
            pendingHead = 0
        }
        for request in expired {
            fail(request, code: 28, message: "no stream within \(request.request.timeoutMilliseconds) ms", connect: true)
        }
        var connections = draining
        if let current { connections.append(current) }
        for connection in connections {
            var late: [(Int32, NativeRequest)] = []
            for (streamId, request) in connection.streams {
                if request.deadline <= now {
                    late.append((streamId, request))
                } else {
                    nextDeadline = min(nextDeadline, request.deadline)
                }
            }
            for (streamId, request) in late {
                connection.streams[streamId] = nil
                connection.cancel(streamId: streamId)
                answered.store(false, ordering: .relaxed)
                fail(request, code: 28, message: "no answer within \(request.request.timeoutMilliseconds) ms", connect: false)
            }
        }
    }

    // MARK: Failures

    /// A connection attempt failed (TCP, TLS, ALPN): back off, and fail the waiting requests
    /// (they never reached the server).
    private func connectFailed(_ connection: NativeConnection, now: UInt64, code: Int = 0) {
        let message = connection.failure ?? "could not connect"
        connection.close()
        if current === connection { current = nil }
        draining.removeAll { $0 === connection }
        connectFailures += 1
        holdUntil = now + UInt64(configuration.reconnect.delay(attempt: connectFailures) * 1_000_000_000)
        answered.store(false, ordering: .relaxed)
        let failedCode = code != 0 ? code : (message.hasPrefix("TLS") ? 35 : (message.contains("timed out") ? 28 : 7))
        var streams = Array(connection.streams.values)
        connection.streams.removeAll()
        while let request = popPending() { streams.append(request) }
        for request in streams { fail(request, code: failedCode, message: message, connect: true) }
    }

    /// An open connection ended: requests the server did not process (beyond a GOAWAY) are
    /// sent again, the others fail (the server may have processed them: resending is the
    /// caller's choice).
    private func lost(_ connection: NativeConnection, now: UInt64) {
        let message = connection.failure ?? "connection lost"
        let streams = connection.streams.sorted { $0.key < $1.key }
        connection.streams.removeAll()
        connection.close()
        if current === connection { current = nil }
        draining.removeAll { $0 === connection }
        if !connection.answeredAny {
            // Closed before answering anything: count it as a failed attempt, so that a server
            // that closes every connection at once is not reconnected to in a tight loop.
            connectFailures += 1
            holdUntil = now + UInt64(configuration.reconnect.delay(attempt: connectFailures) * 1_000_000_000)
        }
        answered.store(false, ordering: .relaxed)
        let last = connection.goawayLastStreamId
        for (streamId, request) in streams {
            if let last, streamId > last {
                resendOrFail(request, reason: "the server's GOAWAY left the stream unprocessed")
            } else {
                fail(request, code: 56, message: message, connect: false)
            }
        }
    }

    private func fail(_ request: NativeRequest, code: Int, message: String, connect: Bool) {
        inFlight.subtract(1, ordering: .relaxed)
        request.completion(.failure(HTTPTransportError(code: code, message: message, isConnectFailure: connect, client: "h2")))
    }

    private func shutDown() {
        answered.store(false, ordering: .relaxed)
        let left = queue.withLock { queue in
            defer { queue.requests.removeAll() }
            return queue.requests
        }
        var requests: [NativeRequest] = []
        while let request = popPending() { requests.append(request) }
        var connections = draining
        if let current { connections.append(current) }
        for connection in connections {
            requests += connection.streams.values
            connection.streams.removeAll()
            connection.close()
        }
        current = nil
        draining.removeAll()
        for request in requests + left {
            inFlight.subtract(1, ordering: .relaxed)
            request.completion(.failure(Self.stoppedError))
        }
    }
}
