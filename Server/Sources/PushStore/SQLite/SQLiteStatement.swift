import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value bound to a statement parameter.
enum SQLValue {
    case text(String)
    case int(Int64)
    case blob(Data)
    case null

    static func optionalText(_ value: String?) -> SQLValue {
        value.map(SQLValue.text) ?? .null
    }

    init(_ value: StoreValue) {
        switch value {
        case .null: self = .null
        case .int(let number): self = .int(number)
        case .text(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }

    static func date(_ value: Date) -> SQLValue {
        .int(Int64((value.timeIntervalSince1970 * 1000).rounded()))
    }
}

/// A prepared statement; given back to its connection's statement cache when released.
final class SQLiteStatement {
    private let stmt: OpaquePointer
    private let connection: SQLiteConnection
    private let cacheKey: String

    init(_ stmt: OpaquePointer, connection: SQLiteConnection, cacheKey: String) {
        self.stmt = stmt
        self.connection = connection
        self.cacheKey = cacheKey
    }

    deinit {
        connection.recycle(stmt, sql: cacheKey)
    }

    /// The virtual-machine steps this statement took since the last call (`SQLITE_STMTSTATUS_VM_STEP`, reset by the call).
    func takeVirtualMachineSteps() -> Int {
        Int(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 1))
    }

    func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .text(let text):
                var text = text
                rc = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { csqlite_bind_text(stmt, index, $0.baseAddress, Int32($0.count)) }
                }
            case .int(let number):
                rc = sqlite3_bind_int64(stmt, index, number)
            case .blob(let data):
                rc = data.withUnsafeBytes { csqlite_bind_blob(stmt, index, $0.baseAddress, Int32($0.count)) }
            case .null:
                rc = sqlite3_bind_null(stmt, index)
            }
            guard rc == SQLITE_OK else { throw StoreError.database(connection.lastError) }
        }
    }

    /// Advances; true while there is a row.
    func step() throws -> Bool {
        switch sqlite3_step(stmt) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let code = connection.lastErrorCode
            // SQLITE_CONSTRAINT_UNIQUE (2067) and SQLITE_CONSTRAINT_PRIMARYKEY (1555) do not import.
            if code == 2067 || code == 1555 {
                throw StoreError.conflict
            }
            throw StoreError.database(connection.lastError)
        }
    }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(stmt, column) else { return "" }
        // By length, not up to the first NUL: stored text may contain one.
        let count = Int(sqlite3_column_bytes(stmt, column))
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        sqlite3_column_type(stmt, column) == SQLITE_NULL ? nil : text(column)
    }

    func int(_ column: Int32) -> Int64 {
        sqlite3_column_int64(stmt, column)
    }

    func date(_ column: Int32) -> Date {
        Date(timeIntervalSince1970: Double(int(column)) / 1000)
    }

    func blob(_ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(stmt, column))
        guard count > 0, let pointer = sqlite3_column_blob(stmt, column) else { return Data() }
        return Data(bytes: pointer, count: count)
    }

    /// The column as it is stored (its SQLite type decides the case).
    func value(_ column: Int32) -> StoreValue {
        switch sqlite3_column_type(stmt, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .int(int(column))
        case SQLITE_TEXT: return .text(text(column))
        default: return .blob(blob(column))
        }
    }

    func optionalBlob(_ column: Int32) -> Data? {
        sqlite3_column_type(stmt, column) == SQLITE_NULL ? nil : blob(column)
    }
}
