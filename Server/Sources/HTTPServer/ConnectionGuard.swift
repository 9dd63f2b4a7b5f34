import ServerSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps one client from holding the server's connections: at most
/// ``HTTPServerConfiguration/connectionsPerAddress`` connections per peer address (trusted
/// proxies exempt), and a deadline for each request that the client cannot extend.
///
/// libmicrohttpd's own timeout counts idle time, so a client that sends a header line every few
/// seconds keeps a connection forever. Here a connection gets ``HTTPServerConfiguration/requestTimeoutSeconds``
/// from its start (and from the end of each response on a kept-alive connection) until its whole
/// request — request line, headers and body — has arrived; a watchdog thread shuts the socket
/// down when that passes, and libmicrohttpd then closes the connection on its own thread.
final class ConnectionGuard: Sendable {
    /// One open connection. Its fields are read and written only under the guard's lock.
    final class Connection: @unchecked Sendable {
        // @unchecked: mutable state, touched only inside `ConnectionGuard.state.withLock`.
        let address: String
        let fd: Int32
        let trusted: Bool
        /// When the request being read must be complete; nil while a handler runs or a response
        /// is being sent.
        var deadline: ContinuousClock.Instant?

        init(address: String, fd: Int32, trusted: Bool, deadline: ContinuousClock.Instant) {
            self.address = address
            self.fd = fd
            self.trusted = trusted
            self.deadline = deadline
        }
    }

    /// What the guard counted since the server started (tests and logs).
    struct Counts: Sendable, Equatable {
        /// Connections refused because their address held its limit.
        var refused = 0
        /// Connections closed because their request did not arrive in time.
        var expired = 0
    }

    private struct State {
        var perAddress: [String: Int] = [:]
        var open: [ObjectIdentifier: Connection] = [:]
        var counts = Counts()
        var running = true
        var watching = false
    }

    private let perAddressLimit: Int
    private let timeout: Duration
    private let trustedProxies: [CIDRBlock]
    private let state = Locked(State())
    private let wake = ConditionLock()

    init(configuration: HTTPServerConfiguration) {
        perAddressLimit = configuration.connectionsPerAddress
        timeout = .milliseconds(Int(configuration.requestTimeoutSeconds * 1000))
        trustedProxies = configuration.trustedProxies
    }

    /// Whether `address` is a configured reverse proxy.
    func isTrusted(_ address: String) -> Bool {
        guard !trustedProxies.isEmpty, let parsed = IPAddress(address) else { return false }
        return trustedProxies.contains { $0.contains(parsed) }
    }

    /// Whether a new connection from `address` may be set up (called before libmicrohttpd
    /// accepts it). The count itself moves in ``opened(address:fd:)`` and ``closed(_:)``, so
    /// a connection refused later by libmicrohttpd (its total limit) leaves no count behind;
    /// connections accepted at the same moment on other server threads can pass the limit
    /// by at most the number of threads.
    func admits(_ address: String) -> Bool {
        guard perAddressLimit > 0, !isTrusted(address) else { return true }
        return state.withLock { state in
            guard state.perAddress[address, default: 0] < perAddressLimit else {
                state.counts.refused += 1
                return false
            }
            return true
        }
    }

    /// Records a connection libmicrohttpd set up; its request clock starts now.
    func opened(address: String, fd: Int32) -> Connection {
        let connection = Connection(address: address, fd: fd, trusted: isTrusted(address), deadline: .now + timeout)
        state.withLock { state in
            state.perAddress[address, default: 0] += 1
            state.open[ObjectIdentifier(connection)] = connection
        }
        return connection
    }

    /// Forgets a connection. libmicrohttpd calls this before it closes the socket, so the
    /// watchdog never shuts down a descriptor number that another connection reuses.
    func closed(_ connection: Connection) {
        state.withLock { state in
            let count = state.perAddress[connection.address, default: 1] - 1
            state.perAddress[connection.address] = count > 0 ? count : nil
            state.open[ObjectIdentifier(connection)] = nil
        }
    }

    /// The whole request arrived: its handler runs and the response goes out without a deadline.
    func requestArrived(_ connection: Connection) {
        state.withLock { _ in connection.deadline = nil }
    }

    /// The response was sent: a kept-alive connection has `requestTimeoutSeconds` for its next request.
    func responseSent(_ connection: Connection) {
        state.withLock { _ in connection.deadline = .now + timeout }
    }

    /// The counts so far.
    var counts: Counts { state.withLock { $0.counts } }

    /// Connections open now from `address`.
    func openConnections(from address: String) -> Int { state.withLock { $0.perAddress[address, default: 0] } }

    /// Starts the watchdog thread.
    func start() {
        state.withLock { $0.watching = true }
        ServerThread.start(name: "http-deadlines") { [self] in
            watch()
            wake.withLock {
                state.withLock { $0.watching = false }
                wake.broadcast()
            }
        }
    }

    /// Stops the watchdog and waits for its thread to end.
    func stop() {
        wake.withLock {
            state.withLock { $0.running = false }
            wake.broadcast()
            while state.withLock({ $0.watching }) { wake.wait() }
        }
    }

    /// Every tick, shuts down the sockets of connections whose request is overdue. A tick is a
    /// tenth of the timeout (at most a quarter of a second), so a deadline holds to within it.
    private func watch() {
        let tick = min(timeout / 10, .milliseconds(250))
        while true {
            let now = ContinuousClock.now
            let running = state.withLock { state -> Bool in
                guard state.running else { return false }
                for connection in state.open.values {
                    guard let deadline = connection.deadline, deadline <= now else { continue }
                    connection.deadline = nil
                    state.counts.expired += 1
                    // libmicrohttpd sees the end of the stream and closes the connection itself.
                    _ = shutdown(connection.fd, Int32(SHUT_RDWR))
                }
                return true
            }
            guard running else { return }
            let seconds = Double(tick.components.seconds) + Double(tick.components.attoseconds) / 1e18
            wake.withLock {
                if state.withLock({ $0.running }) { wake.wait(until: Date().addingTimeInterval(seconds)) }
            }
        }
    }
}
