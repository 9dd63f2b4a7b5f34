import ServerSupport

/// At most `size` connections, opened when first needed and handed to one caller at a time
/// (a caller waits while all are out). A connection the server dropped (a PostgreSQL
/// restart) is reopened at its next checkout, so the store outlives the server's restarts.
final class PGPool: @unchecked Sendable {
    // @unchecked: `idle`, `open` and `closed` are only touched inside `state.withLock`.
    private let state = ConditionLock()
    private var idle: [PGConnection] = []
    private var open = 0
    private var closed = false
    private let size: Int
    private let parameters: PGParameters

    init(_ parameters: PGParameters, size: Int) {
        self.parameters = parameters
        self.size = max(1, size)
    }

    deinit {
        close()
    }

    /// Runs `body` with a connection of its own. When the connection had sat in the pool and
    /// its first request finds it dead (the server restarted meanwhile: nothing ran), it is
    /// reopened and `body` runs once more.
    func withConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        let (connection, reused) = try checkout()
        defer { checkin(connection) }
        connection.resetRoundTrips()
        do {
            return try body(connection)
        } catch {
            guard reused, connection.isBroken, connection.roundTrips <= 1 else { throw error }
            try connection.reconnect()
            connection.resetRoundTrips()
            return try body(connection)
        }
    }

    /// Closes the idle connections; the ones in use close when they come back.
    func close() {
        let connections = state.withLock { () -> [PGConnection] in
            closed = true
            defer { idle = [] }
            state.broadcast()
            return idle
        }
        connections.forEach { $0.close() }
    }

    private func checkout() throws -> (PGConnection, reused: Bool) {
        let taken = try state.withLock { () throws -> PGConnection? in
            while true {
                if closed { throw StoreError.database("the PostgreSQL store is closed") }
                if let connection = idle.popLast() { return connection }
                if open < size {
                    open += 1
                    return nil
                }
                state.wait()
            }
        }
        guard let connection = taken else {
            do {
                return (try PGConnection(parameters), false)
            } catch {
                state.withLock {
                    open -= 1
                    state.signal()
                }
                throw error
            }
        }
        if connection.isBroken {
            do {
                try connection.reconnect()
            } catch {
                checkin(connection)
                throw error
            }
            return (connection, false)
        }
        return (connection, true)
    }

    private func checkin(_ connection: PGConnection) {
        if !connection.isBroken, connection.inTransaction {
            // A body that returned inside a transaction (it never should): do not lend it out so.
            try? connection.execute("ROLLBACK")
        }
        let keep = state.withLock { () -> Bool in
            defer { state.signal() }
            if closed {
                open -= 1
                return false
            }
            idle.append(connection)
            return true
        }
        if !keep { connection.close() }
    }
}
