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

// What travels over a connection: statement parameters (`PGValue`) and results (`PGResult`,
// `PGRow`), in binary format.

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
