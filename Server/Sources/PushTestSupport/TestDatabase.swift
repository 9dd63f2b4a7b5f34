import CLibPQ
import PushCore
import PushStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The store a test runs on: SQLite in the test's directory, or — when
/// `PUSH_TEST_DATABASE_URL` is set (Server/Scripts/ci.sh sets it to a throwaway cluster made by
/// Server/Scripts/pg-cluster.sh) — a fresh PostgreSQL schema of its own, dropped afterwards.
/// Each suite that goes through it runs on both stores in CI.
public final class TestDatabase: @unchecked Sendable {
    // @unchecked: immutable.
    /// The PostgreSQL server every test shares, when the suite runs on PostgreSQL.
    public static let serverURL: String? = {
        let url = ProcessInfo.processInfo.environment["PUSH_TEST_DATABASE_URL"] ?? ""
        return url.isEmpty ? nil : url
    }()

    /// Whether this run's tests use PostgreSQL.
    public static var isPostgres: Bool { serverURL != nil }

    /// The PostgreSQL URL of this test's schema; nil on SQLite.
    public let url: String?
    /// The SQLite file on SQLite.
    public let sqlitePath: String
    private let schema: String?
    private let opened = Locked<[PostgresStore]>([])

    /// A database for one test whose files live in `directory`.
    public init(directory: String) throws {
        sqlitePath = directory + "/push.sqlite"
        guard let server = Self.serverURL else {
            url = nil
            schema = nil
            return
        }
        let name = "t_" + UUID().uuidString.lowercased().replacing("-", with: "")
        try Self.execute("CREATE SCHEMA \(name)", on: server)
        schema = name
        url = server + (server.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
    }

    deinit {
        for store in opened.withLock({ $0 }) { store.close() }
        if let schema, let server = Self.serverURL {
            try? Self.execute("DROP SCHEMA \(schema) CASCADE", on: server)
        }
    }

    /// What `push-server` needs to use this database: `--database <url>` on PostgreSQL,
    /// nothing on SQLite (the default file in its `--data-dir`).
    public var arguments: [String] { url.map { ["--database", $0] } ?? [] }

    /// Opens the store (another connection to the same data, as a second process would); a
    /// PostgreSQL store is closed when this database goes.
    public func open() throws -> any ServiceStore {
        if let url {
            let store = try PostgresStore(url: url, poolSize: 2, logger: .silent)
            opened.withLock { $0.append(store) }
            return store
        }
        return try SQLiteStore(path: sqlitePath, synchronousFull: false)
    }

    /// Runs one statement on the server (schema creation and removal).
    static func execute(_ sql: String, on url: String) throws {
        guard let connection = PQconnectdb(url) else { throw StoreError.database("out of memory") }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else {
            throw StoreError.database("cannot reach the test PostgreSQL: " + String(cString: PQerrorMessage(connection)))
        }
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw StoreError.database(String(cString: PQerrorMessage(connection)))
        }
    }
}
