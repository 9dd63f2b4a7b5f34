import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the live downloader's tests. Each path answers with
/// a script: a status, an announced `Content-Length` that may lie, a body sent at a pace, and a
/// connection that closes or stays open without sending more (a stall). It records how each
/// exchange ended, so a test can see that the client hung up early.
final class LocalHTTPServer: @unchecked Sendable {
    // @unchecked: mutable state is guarded by `condition`; sockets are owned by their threads.

    /// How one path answers.
    struct Script: Sendable {
        /// What the `Content-Length` header says.
        enum Length: Sendable {
            /// The number of body bytes sent.
            case truthful
            /// No header: the body ends when the connection closes.
            case absent
            /// This number, whatever is sent.
            case claims(Int)
        }

        var status = 200
        var contentType = "image/png"
        var length = Length.truthful
        /// Body bytes actually sent: byte `i` is `UInt8(truncatingIfNeeded: i)`.
        var bodyBytes = 0
        /// Sent in pieces of this size, with `pauseMilliseconds` between pieces.
        var pieceBytes = 64 * 1024
        var pauseMilliseconds: Int32 = 0
        /// Send nothing at all, not even the headers, and keep the connection open.
        var stallBeforeHeaders = false
        /// After the body, keep the connection open instead of closing it.
        var stallAfterBody = false
    }

    /// How one exchange ended.
    enum Outcome: Sendable, Equatable {
        /// Every scripted byte went out and the server closed the connection.
        case sentAll
        /// The client closed the connection after `bytesSent` body bytes.
        case clientHungUp(bytesSent: Int)
        /// The server was stopped while the exchange was open.
        case stopped
    }

    private struct State {
        var scripts: [String: Script] = [:]
        var requests: [String] = []
        var outcomes: [String: [Outcome]] = [:]
        var connections: Set<Int32> = []
        var stopping = false
    }

    private let condition = NSCondition()
    private var state = State()
    private let listener: Int32
    /// The port it listens on.
    let port: Int

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ServerError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ServerError("bind/listen: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "local-http-accept"
        thread.start()
    }

    struct ServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Answers `path` with `script`.
    func route(_ path: String, _ script: Script) {
        condition.withLock { state.scripts[path] = script }
    }

    /// The paths requested so far, in order.
    var requests: [String] { condition.withLock { state.requests } }

    /// Waits until `path` was requested `count` times; false after `timeout` seconds.
    func waitForRequest(_ path: String, count: Int = 1, timeout: TimeInterval = 30) async -> Bool {
        await offThePool { self.wait(timeout) { $0.requests.filter { $0 == path }.count >= count } }
    }

    /// Waits until the first exchange on `path` ended, and returns how; nil after `timeout` seconds.
    func waitForOutcome(_ path: String, timeout: TimeInterval = 30) async -> Outcome? {
        await offThePool {
            guard self.wait(timeout, until: { $0.outcomes[path]?.isEmpty == false }) else { return nil }
            return self.condition.withLock { self.state.outcomes[path]?.first }
        }
    }

    private func wait(_ timeout: TimeInterval, until done: (State) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done(state) {
            if !condition.wait(until: deadline) { return done(state) }
        }
        return true
    }

    /// Stops listening and closes every open connection.
    func stop() {
        let open = condition.withLock { () -> Set<Int32>? in
            guard !state.stopping else { return nil }
            state.stopping = true
            return state.connections
        }
        guard let open else { return }  // closing twice could close a descriptor reused since
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }

    private var stopping: Bool { condition.withLock { state.stopping } }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let accepted = condition.withLock { () -> Bool in
                guard !state.stopping else { return false }
                state.connections.insert(fd)
                return true
            }
            guard accepted else {
                close(fd)
                return
            }
            #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let thread = Thread { [self] in serve(fd) }
            thread.name = "local-http-connection"
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            condition.withLock { _ = state.connections.remove(fd) }
            close(fd)
        }
        guard let path = readRequestPath(fd) else { return }
        let script = condition.withLock { () -> Script? in
            state.requests.append(path)
            condition.broadcast()
            return state.scripts[path]
        }
        let outcome = answer(fd, script ?? Script(status: 404, contentType: "text/html", bodyBytes: 9))
        condition.withLock {
            state.outcomes[path, default: []].append(outcome)
            condition.broadcast()
        }
    }

    private func answer(_ fd: Int32, _ script: Script) -> Outcome {
        if script.stallBeforeHeaders { return hold(fd, bytesSent: 0) }
        var head = "HTTP/1.1 \(script.status) Scripted\r\nContent-Type: \(script.contentType)\r\nConnection: close\r\n"
        switch script.length {
        case .truthful: head += "Content-Length: \(script.bodyBytes)\r\n"
        case .absent: break
        case .claims(let count): head += "Content-Length: \(count)\r\n"
        }
        head += "\r\n"
        guard sendAll(fd, Array(head.utf8)) else { return .clientHungUp(bytesSent: 0) }
        var sent = 0
        var piece = [UInt8](repeating: 0, count: max(1, script.pieceBytes))
        while sent < script.bodyBytes {
            if script.pauseMilliseconds > 0, sent > 0 {
                switch waitForClose(fd, milliseconds: script.pauseMilliseconds) {
                case .closed: return .clientHungUp(bytesSent: sent)
                case .stopping: return .stopped
                case .open: break
                }
            }
            let count = min(piece.count, script.bodyBytes - sent)
            for index in 0..<count { piece[index] = UInt8(truncatingIfNeeded: sent + index) }
            guard sendAll(fd, Array(piece[0..<count])) else { return .clientHungUp(bytesSent: sent) }
            sent += count
        }
        if script.stallAfterBody { return hold(fd, bytesSent: sent) }
        return .sentAll
    }

    /// Keeps the connection open, sending nothing, until the client or the server closes it.
    private func hold(_ fd: Int32, bytesSent: Int) -> Outcome {
        while true {
            switch waitForClose(fd, milliseconds: 50) {
            case .closed: return .clientHungUp(bytesSent: bytesSent)
            case .stopping: return .stopped
            case .open: continue
            }
        }
    }

    private enum Liveness { case open, closed, stopping }

    /// Waits up to `milliseconds` for the client to close its side.
    private func waitForClose(_ fd: Int32, milliseconds: Int32) -> Liveness {
        if stopping { return .stopping }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if stopping { return .stopping }
        guard ready > 0 else { return .open }
        var scratch = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &scratch, scratch.count, 0)
        return count <= 0 ? .closed : .open
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Reads the request head and returns its path.
    private func readRequestPath(_ fd: Int32) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 64 * 1024 {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            if text.contains("\r\n\r\n") {
                let words = text.split(separator: " ", maxSplits: 2)
                return words.count >= 2 ? String(words[1]) : nil
            }
        }
        return nil
    }
}
