import CLibPQ
import ServerSupport
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One libpq connection with its prepared statements. Not thread-safe: the pool hands it to
/// one thread at a time (and the listener keeps its own).
final class PGConnection: @unchecked Sendable {
    // @unchecked: used by one thread at a time (a pool checkout, or the listener thread).
    private(set) var handle: OpaquePointer?
    private let parameters: PGParameters
    /// Statements prepared on this connection: name by SQL text and parameter types.
    private var statements: [String: String] = [:]
    /// Requests sent since ``resetRoundTrips()``: the pool retries a body whose first request
    /// found the connection dead (a server restart while it sat idle), as nothing ran then.
    private(set) var roundTrips = 0
    /// SQL run before `COMMIT` in the same request (a `NOTIFY`), set by ``notifyAtCommit(_:)``.
    private var beforeCommit: String?

    init(_ parameters: PGParameters) throws {
        self.parameters = parameters
        handle = try parameters.connect()
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Whether the connection is unusable (closed, or lost by the server).
    var isBroken: Bool {
        guard let handle else { return true }
        return PQstatus(handle) != CONNECTION_OK
    }

    /// Whether a transaction is open (or failed and not yet rolled back).
    var inTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Drops the connection and opens a new one (prepared statements are gone with it).
    func reconnect() throws {
        close()
        handle = try parameters.connect()
    }

    /// Closes the connection.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements = [:]
        beforeCommit = nil
    }

    func resetRoundTrips() {
        roundTrips = 0
    }

    /// Runs SQL without parameters (one or more statements: migrations, `BEGIN`, `LISTEN`).
    func execute(_ sql: String) throws {
        guard let handle else { throw StoreError.database("the PostgreSQL connection is closed") }
        roundTrips += 1
        guard let result = PQexec(handle, sql) else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
    }

    /// Runs a statement, prepared once per connection (by SQL text and parameter types), with
    /// binary parameters and binary results.
    @discardableResult
    func query(_ sql: String, _ values: [PGValue] = []) throws -> PGResult {
        guard let handle else { throw StoreError.database("the PostgreSQL connection is closed") }
        let types = values.map(\.oid)
        let key = sql + "\u{0}" + types.map { String($0) }.joined(separator: ",")
        let name: String
        if let prepared = statements[key] {
            name = prepared
        } else {
            name = "s\(statements.count + 1)"
            roundTrips += 1
            let prepared = types.withUnsafeBufferPointer { PQprepare(handle, name, sql, Int32(types.count), $0.baseAddress) }
            guard let prepared else { throw failure(nil) }
            defer { PQclear(prepared) }
            guard PQresultStatus(prepared) == PGRES_COMMAND_OK else { throw failure(prepared) }
            statements[key] = name
        }
        roundTrips += 1
        let result = try withParameters(values) { count, pointers, lengths, formats in
            PQexecPrepared(handle, name, count, pointers, lengths, formats, 1)
        }
        return try check(result)
    }

    /// Runs a statement once without preparing it (statements whose text varies, like a
    /// multi-row `INSERT`). Types of untyped NULLs are inferred by the server.
    @discardableResult
    func queryOnce(_ sql: String, _ values: [PGValue]) throws -> PGResult {
        guard let handle else { throw StoreError.database("the PostgreSQL connection is closed") }
        let types = values.map(\.oid)
        roundTrips += 1
        let result = try types.withUnsafeBufferPointer { types in
            try withParameters(values) { count, pointers, lengths, formats in
                PQexecParams(handle, sql, count, types.baseAddress, pointers, lengths, formats, 1)
            }
        }
        return try check(result)
    }

    /// Runs `body` in a transaction, committing on success and rolling back on error.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        beforeCommit = nil
        do {
            let value = try body()
            let commit = beforeCommit.map { $0 + "; COMMIT" } ?? "COMMIT"
            beforeCommit = nil
            try execute(commit)
            return value
        } catch {
            beforeCommit = nil
            if inTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Sends `sql` (a `NOTIFY`) with the `COMMIT` of the current transaction, in one request.
    func notifyAtCommit(_ sql: String) {
        beforeCommit = sql
    }

    private func check(_ result: OpaquePointer?) throws -> PGResult {
        guard let result else { throw failure(nil) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            defer { PQclear(result) }
            throw failure(result)
        }
        return PGResult(result)
    }

    /// Encodes the parameters into one buffer and calls `body` with libpq's four arrays.
    private func withParameters(
        _ values: [PGValue],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> OpaquePointer?
    ) throws -> OpaquePointer? {
        var buffer: [UInt8] = []
        var spans: [(offset: Int, length: Int)?] = []
        spans.reserveCapacity(values.count)
        for value in values {
            let start = buffer.count
            let isValue = try value.encode(into: &buffer)
            spans.append(isValue ? (offset: start, length: buffer.count - start) : nil)
        }
        buffer.append(0)  // a valid address for empty values
        let lengths = spans.map { Int32($0?.length ?? 0) }
        let formats = [Int32](repeating: 1, count: values.count)
        return buffer.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = spans.map { span in span.map { base + $0.offset } }
            return pointers.withUnsafeBufferPointer { pointers in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(Int32(values.count), pointers.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }

    /// The error of a failed request, without parameter values or connection secrets:
    /// `unique_violation` is ``StoreError/conflict``; data errors (whose messages may quote
    /// a value) keep only their SQLSTATE.
    private func failure(_ result: OpaquePointer?) -> StoreError {
        func field(_ code: Character) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        guard let state = field("C") else {
            let message = handle.map { String(cString: PQerrorMessage($0)) } ?? ""
            return .database("PostgreSQL: " + Self.oneLine(message.isEmpty ? "request failed" : message))
        }
        let primary = field("M").map(Self.oneLine) ?? "error"
        switch state {
        case "23505": return .conflict
        case "23503": return .database("FOREIGN KEY constraint failed: \(primary)")
        case _ where state.hasPrefix("22"): return .database("PostgreSQL refused a value (SQLSTATE \(state))")
        default: return .database("PostgreSQL: \(primary) (SQLSTATE \(state))")
        }
    }

    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map(\.trimmingWhitespace).filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// How to connect: the URL as libpq parses it, with defaults the URL may override. The URL
/// (which may hold a password) never appears in an error or a log line.
struct PGParameters: Sendable {
    private let url: String

    /// Checks the URL with libpq's parser (without echoing libpq's message, which may quote
    /// part of it).
    init(url: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            if let message { PQfreemem(message) }
            throw StoreError.database("the PostgreSQL URL is not valid (a libpq connection URI is expected)")
        }
        PQconninfoFree(options)
        self.url = url
    }

    /// Opens a connection: UTF-8, no notices on stderr, keepalives so a vanished server is
    /// noticed, and a connect timeout (each unless the URL says otherwise).
    func connect() throws -> OpaquePointer {
        // Earlier entries are defaults: the URL (expanded at "dbname") overrides them.
        let pairs = [
            ("connect_timeout", "10"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
            ("fallback_application_name", "push-server"), ("dbname", url),
        ]
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let connection = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordList in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valueList in
                PQconnectdbParams(keywordList.baseAddress, valueList.baseAddress, 1)
            }
        }
        guard let connection else { throw StoreError.database("PostgreSQL: out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = PGConnection.oneLine(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw StoreError.database("cannot connect to PostgreSQL: \(message)")
        }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        guard PQsetClientEncoding(connection, "UTF8") == 0 else {
            PQfinish(connection)
            throw StoreError.database("PostgreSQL: cannot use the UTF8 client encoding")
        }
        let encoding = PQparameterStatus(connection, "server_encoding").map { String(cString: $0) } ?? ""
        guard encoding == "UTF8" else {
            PQfinish(connection)
            throw StoreError.database("the PostgreSQL database must use the UTF8 encoding (it uses \(encoding))")
        }
        return connection
    }
}
