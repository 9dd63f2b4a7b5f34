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

/// A statement parameter with its PostgreSQL type. Every value travels in binary format, so
/// `bytea` needs no escaping and any byte round-trips; text must not contain NUL (PostgreSQL
/// text cannot hold it), which ``encode(into:)`` refuses instead of cutting the text.
enum PGValue {
    case text(String?)
    case int(Int64?)
    case bytea(Data?)
    case bool(Bool)
    case textArray([String?])
    case intArray([Int64?])
    case byteaArray([Data?])
    /// A NULL whose type the server infers from the statement (`import` of a ``StoreValue/null``).
    case untypedNull

    static func date(_ value: Date) -> PGValue {
        .int(Int64((value.timeIntervalSince1970 * 1000).rounded()))
    }

    static func dates(_ values: [Date]) -> PGValue {
        .intArray(values.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) })
    }

    init(_ value: StoreValue) {
        switch value {
        case .null: self = .untypedNull
        case .int(let number): self = .int(number)
        case .text(let text): self = .text(text)
        case .blob(let data): self = .bytea(data)
        }
    }

    /// A `LIMIT` value as SQLite reads it: a negative limit means no limit (`LIMIT NULL`).
    static func limit(_ count: Int) -> PGValue {
        count < 0 ? .int(nil) : .int(Int64(count))
    }

    /// The type's OID (pg_type), 0 for an untyped NULL.
    var oid: Oid {
        switch self {
        case .bool: return 16
        case .bytea: return 17
        case .int: return 20
        case .text: return 25
        case .byteaArray: return 1001
        case .textArray: return 1009
        case .intArray: return 1016
        case .untypedNull: return 0
        }
    }

    /// Appends the binary representation to `buffer`; returns false for NULL (nothing appended).
    func encode(into buffer: inout [UInt8]) throws -> Bool {
        switch self {
        case .text(let text):
            guard let text else { return false }
            try Self.appendText(text, to: &buffer)
        case .int(let number):
            guard let number else { return false }
            Self.append(number, to: &buffer)
        case .bytea(let data):
            guard let data else { return false }
            buffer.append(contentsOf: data)
        case .bool(let flag):
            buffer.append(flag ? 1 : 0)
        case .textArray(let texts):
            try Self.appendArray(texts, elementOid: 25, to: &buffer) { try Self.appendText($0, to: &$1) }
        case .intArray(let numbers):
            Self.appendArray(numbers, elementOid: 20, to: &buffer) { Self.append($0, to: &$1) }
        case .byteaArray(let blobs):
            Self.appendArray(blobs, elementOid: 17, to: &buffer) { $1.append(contentsOf: $0) }
        case .untypedNull:
            return false
        }
        return true
    }

    static func appendText(_ text: String, to buffer: inout [UInt8]) throws {
        let start = buffer.count
        buffer.append(contentsOf: text.utf8)
        if buffer[start...].contains(0) {
            throw StoreError.database("PostgreSQL text cannot hold the NUL character (U+0000); the value was refused")
        }
    }

    static func append(_ number: Int64, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: number.bigEndian) { buffer.append(contentsOf: $0) }
    }

    static func append(_ number: Int32, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: number.bigEndian) { buffer.append(contentsOf: $0) }
    }

    /// A one-dimensional array in PostgreSQL's binary array format: dimensions, a has-NULL
    /// flag, the element type, then each element as a length (-1 for NULL) and its bytes.
    static func appendArray<Element>(
        _ elements: [Element?], elementOid: Oid, to buffer: inout [UInt8], _ encode: (Element, inout [UInt8]) throws -> Void
    ) rethrows {
        append(Int32(elements.isEmpty ? 0 : 1), to: &buffer)
        append(Int32(elements.contains { $0 == nil } ? 1 : 0), to: &buffer)
        append(Int32(bitPattern: elementOid), to: &buffer)
        guard !elements.isEmpty else { return }
        append(Int32(elements.count), to: &buffer)
        append(Int32(1), to: &buffer)
        for element in elements {
            guard let element else {
                append(Int32(-1), to: &buffer)
                continue
            }
            let lengthAt = buffer.count
            append(Int32(0), to: &buffer)
            try encode(element, &buffer)
            let length = Int32(buffer.count - lengthAt - 4).bigEndian
            withUnsafeBytes(of: length) { bytes in
                for index in 0..<4 { buffer[lengthAt + index] = bytes[index] }
            }
        }
    }
}

/// The result of a statement; the rows are read through ``PGRow``.
final class PGResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    /// Rows returned.
    var count: Int { Int(PQntuples(handle)) }

    /// Rows the statement changed (`INSERT`, `UPDATE`, `DELETE`), 0 for others.
    var affected: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// Each row mapped by `body`.
    func map<T>(_ body: (PGRow) throws -> T) rethrows -> [T] {
        try (0..<PQntuples(handle)).map { try body(PGRow(result: handle, row: $0)) }
    }

    /// The first row mapped by `body`, nil when there is none.
    func first<T>(_ body: (PGRow) throws -> T) rethrows -> T? {
        PQntuples(handle) > 0 ? try body(PGRow(result: handle, row: 0)) : nil
    }
}

/// One row of a ``PGResult`` (binary results; text results are read too).
struct PGRow {
    let result: OpaquePointer
    let row: Int32

    func isNull(_ column: Int32) -> Bool {
        PQgetisnull(result, row, column) != 0
    }

    private func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(PQgetlength(result, row, column))
        guard count > 0, let pointer = PQgetvalue(result, row, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    func text(_ column: Int32) -> String {
        String(decoding: bytes(column), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    func int(_ column: Int32) -> Int64 {
        let raw = bytes(column)
        guard PQfformat(result, column) == 1 else { return Int64(text(column)) ?? 0 }
        var value: Int64 = 0
        for byte in raw { value = value << 8 | Int64(byte) }
        switch raw.count {
        case 1: return Int64(Int8(truncatingIfNeeded: value))
        case 2: return Int64(Int16(truncatingIfNeeded: value))
        case 4: return Int64(Int32(truncatingIfNeeded: value))
        default: return value
        }
    }

    func bool(_ column: Int32) -> Bool {
        guard PQfformat(result, column) == 1 else { return text(column) == "t" }
        return bytes(column).first == 1
    }

    func date(_ column: Int32) -> Date {
        Date(timeIntervalSince1970: Double(int(column)) / 1000)
    }

    func optionalDate(_ column: Int32) -> Date? {
        isNull(column) ? nil : date(column)
    }

    func blob(_ column: Int32) -> Data {
        let raw = bytes(column)
        guard PQfformat(result, column) == 1 else { return Self.decodeHex(raw) }
        return Data(raw)
    }

    func optionalBlob(_ column: Int32) -> Data? {
        isNull(column) ? nil : blob(column)
    }

    /// The column as a ``StoreValue``, its PostgreSQL type deciding the case.
    func value(_ column: Int32) -> StoreValue {
        if isNull(column) { return .null }
        switch PQftype(result, column) {
        case 16, 20, 21, 23: return .int(int(column))
        case 17: return .blob(blob(column))
        default: return .text(text(column))
        }
    }

    /// `bytea` in text format (`\x` and hex digits).
    private static func decodeHex(_ raw: UnsafeRawBufferPointer) -> Data {
        func nibble(_ byte: UInt8) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            default: return byte &- UInt8(ascii: "A") &+ 10
            }
        }
        let digits = raw.dropFirst(2)
        var data = Data(capacity: digits.count / 2)
        var index = digits.startIndex
        while index + 1 < digits.endIndex {
            data.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        return data
    }
}

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
