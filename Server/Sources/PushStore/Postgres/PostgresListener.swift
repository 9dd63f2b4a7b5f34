import CLibPQ
import ServerSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The store's long-lived session: it `LISTEN`s on the schema's jobs channel and calls the
/// registered handler when any instance commits new jobs, and it holds the session-level
/// advisory lock that tells other instances this store's leases are alive (see
/// ``PostgresStore/releaseAbandonedLeases(now:)``).
///
/// A thread waits on the connection's socket with `poll(2)` (and on a pipe that `close()`
/// writes to). When the connection drops, it reconnects every half second, listens and
/// takes the lock again, and calls the handler once (notifications sent meanwhile are lost).
/// The loss is logged once as a warning, the reconnection as info.
final class PGListener: @unchecked Sendable {
    // @unchecked: `closing`, `finished` and `handler` are only touched inside `state.withLock`;
    // the connection belongs to the thread after `init`.
    private let parameters: PGParameters
    private let setup: String
    private let state = ConditionLock()
    private var closing = false
    private var finished = false
    private var handler: (@Sendable () -> Void)?
    private let wake: (read: Int32, write: Int32)
    private let logger: Logger

    /// Connects, listens on `channel` and takes the lock of `ownerLock` (SQL that takes it);
    /// throws when that fails, so a store never claims without its liveness lock.
    init(_ parameters: PGParameters, channel: String, ownerLock: String, logger: Logger) throws {
        self.parameters = parameters
        self.logger = logger
        setup = "LISTEN \(channel); \(ownerLock)"
        let connection = try PGConnection(parameters)
        try connection.execute(setup)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw StoreError.database("cannot create the listener's pipe") }
        wake = (fds[0], fds[1])
        ServerThread.start(name: "pg-listen") { [self] in run(connection) }
    }

    /// Sets what runs (on the listener thread) when jobs were added.
    func onNotification(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { self.handler = handler }
    }

    /// Stops the thread and closes the connection (which releases the lock); waits for both.
    func close() {
        let first = state.withLock { () -> Bool in
            defer {
                closing = true
                handler = nil  // it may hold what holds the store: let both go
                state.broadcast()
            }
            return !closing
        }
        if first {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
        state.withLock {
            while !finished { state.wait() }
        }
        if first {
            closeDescriptor(wake.read)
            closeDescriptor(wake.write)
        }
    }

    private func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    private var isClosing: Bool { state.withLock { closing } }

    private func fire() {
        state.withLock { handler }?()
    }

    private func run(_ first: PGConnection) {
        var connection: PGConnection? = first
        while !isClosing {
            guard let current = connection, !current.isBroken else {
                if connection != nil {
                    logger.warning(
                        "PostgreSQL: the store's listener lost its connection; reconnecting every 0.5 s "
                            + "(meanwhile other instances' new jobs are found by polling)")
                }
                connection?.close()
                connection = nil
                if waitForClose(seconds: 0.5) { break }
                if let fresh = try? PGConnection(parameters), (try? fresh.execute(setup)) != nil {
                    connection = fresh
                    logger.info("PostgreSQL: the store's listener is connected again")
                    fire()
                }
                continue
            }
            guard let handle = current.handle else { continue }
            var fds = [
                pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, 1_000)
            if ready < 0 { continue }
            if fds[1].revents != 0 { break }
            guard fds[0].revents != 0 else { continue }
            guard PQconsumeInput(handle) != 0 else {
                current.close()
                continue
            }
            var notified = false
            while let notification = PQnotifies(handle) {
                notified = true
                PQfreemem(notification)
            }
            if notified { fire() }
        }
        connection?.close()
        state.withLock {
            finished = true
            state.broadcast()
        }
    }

    /// Waits up to `seconds` for `close()`; true when it came.
    private func waitForClose(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        return state.withLock {
            while !closing, Date() < deadline { state.wait(until: deadline) }
            return closing
        }
    }
}
