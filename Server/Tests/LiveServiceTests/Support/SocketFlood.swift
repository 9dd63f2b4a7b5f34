import Foundation
import ServerSupport

#if canImport(Glibc)
import Glibc
#endif

/// An attacker on loopback for the connection tests: many TCP connections to the service from
/// one source address (any `127.x.y.z` works on Linux), either left idle or trickling a header
/// line now and then (slow loris), on one thread with `poll(2)`.
///
/// It records, per connection, when the service closed it, so a test can tell how long the
/// service let a connection hold, and it opens a closed trickling connection again (at most once
/// a second per slot), as an attacker keeping up the pressure would.
final class SocketFlood: @unchecked Sendable {
    // @unchecked: the slots are touched only by the flood's thread until `stop()` has joined it;
    // the summary is behind a lock.
    enum Kind { case idle, trickle }

    struct Summary: Sendable {
        /// Connections that were set up (the service accepted the TCP handshake).
        var opened = 0
        /// Connections the service closed.
        var closedByService = 0
        /// The longest a trickling connection stayed open, in seconds.
        var longestTrickle: Double = 0
        /// Header lines sent.
        var linesSent = 0
    }

    private struct Slot {
        var fd: Int32 = -1
        var kind: Kind
        var openedAt = Date.distantPast
        var nextLine = Date.distantPast
        var connected = false
        var retryAt = Date.distantPast
    }

    private let port: Int
    private let source: String
    private let lineInterval: Double
    private var slots: [Slot]
    private let summary = Locked(Summary())
    private let running = Locked(true)
    private let finished = ConditionLock()
    private var done = false

    /// `idle` connections that send nothing and `trickle` ones that send a request line, then a
    /// header line every `lineInterval` seconds and never the blank line that ends the headers.
    init(port: Int, source: String, idle: Int, trickle: Int, lineInterval: Double) {
        self.port = port
        self.source = source
        self.lineInterval = lineInterval
        slots = Array(repeating: Slot(kind: .idle), count: idle) + Array(repeating: Slot(kind: .trickle), count: trickle)
    }

    /// Starts the flood on its own thread.
    func start() {
        Thread.detachNewThread { [self] in
            run()
            finished.withLock {
                done = true
                finished.broadcast()
            }
        }
    }

    /// Stops the flood, closes its sockets and returns what it saw.
    func stop() -> Summary {
        running.withLock { $0 = false }
        finished.withLock {
            while !done { finished.wait() }
        }
        for slot in slots where slot.fd >= 0 { close(slot.fd) }
        return summary.withLock { $0 }
    }

    /// What it saw so far.
    var current: Summary { summary.withLock { $0 } }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while running.withLock({ $0 }) {
            let now = Date()
            for index in slots.indices where slots[index].fd < 0 && now >= slots[index].retryAt {
                // Idle connections are opened once; trickling ones again after the service closed them.
                if slots[index].kind == .idle && slots[index].retryAt != .distantPast { continue }
                open(index, now: now)
            }
            var polls = slots.map { slot in
                pollfd(fd: slot.fd, events: Int16(slot.connected ? POLLIN : POLLOUT), revents: 0)
            }
            _ = poll(&polls, nfds_t(polls.count), 100)
            let after = Date()
            for index in slots.indices where slots[index].fd >= 0 {
                let events = Int32(polls[index].revents)
                if !slots[index].connected {
                    guard events & Int32(POLLOUT) != 0 || events & Int32(POLLERR | POLLHUP) != 0 else { continue }
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(slots[index].fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    guard error == 0 else {
                        drop(index, at: after, byService: false)
                        continue
                    }
                    slots[index].connected = true
                    slots[index].openedAt = after
                    summary.withLock { $0.opened += 1 }
                    if slots[index].kind == .trickle {
                        send(index, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                        slots[index].nextLine = after.addingTimeInterval(lineInterval)
                    }
                    continue
                }
                if events & Int32(POLLIN | POLLERR | POLLHUP) != 0 {
                    // The service answered (it never should: the request never ends) or closed.
                    let count = recv(slots[index].fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if count <= 0 {
                        drop(index, at: after, byService: true)
                        continue
                    }
                }
                if slots[index].kind == .trickle, after >= slots[index].nextLine {
                    send(index, "X-Slow-\(Int.random(in: 0..<1_000_000)): keep-me-open\r\n")
                    slots[index].nextLine = after.addingTimeInterval(lineInterval)
                }
            }
        }
    }

    private func open(_ index: Int, now: Date) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            slots[index].retryAt = now.addingTimeInterval(1)
            return
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let started = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, started == 0 || errno == EINPROGRESS else {
            close(fd)
            slots[index].retryAt = now.addingTimeInterval(1)
            return
        }
        slots[index].fd = fd
        slots[index].connected = false
        slots[index].retryAt = now.addingTimeInterval(1)
    }

    private func send(_ index: Int, _ text: String) {
        let bytes = Array(text.utf8)
        if Glibc.send(slots[index].fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) > 0 {
            summary.withLock { $0.linesSent += 1 }
        }
    }

    private func drop(_ index: Int, at time: Date, byService: Bool) {
        let slot = slots[index]
        close(slot.fd)
        slots[index].fd = -1
        slots[index].connected = false
        if byService, slot.connected {
            let held = time.timeIntervalSince(slot.openedAt)
            summary.withLock { summary in
                summary.closedByService += 1
                if slot.kind == .trickle { summary.longestTrickle = max(summary.longestTrickle, held) }
            }
        }
    }
}
