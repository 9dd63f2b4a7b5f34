import Foundation
import PushMocks
import PushStore
import ServerSupport

/// The PostgreSQL the tests use: `PUSH_TEST_DATABASE_URL` (Server/Scripts/ci.sh starts a
/// throwaway cluster with Server/Scripts/pg-cluster.sh and sets it). Without it the
/// PostgreSQL tests are skipped, visibly.
public enum PGTest {
    /// The server's URL; nil when the PostgreSQL tests are skipped.
    public static var url: String? { TestDatabase.serverURL }

    /// Whether `PUSH_TEST_DATABASE_URL` is set.
    public static var isConfigured: Bool { url != nil }

    /// `psql` of the newest installed PostgreSQL (Debian keeps it out of PATH), else from PATH.
    public static let psqlPath: String = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/psql") {
            return "\(root)/\(version)/bin/psql"
        }
        return "psql"
    }()

    /// Runs SQL with `psql` (an independent client) on `url`, or the base URL; returns the
    /// output (unaligned, tuples only, trimmed). Throws with psql's error output.
    @discardableResult
    public static func psql(_ sql: String, url: String? = nil) throws -> String {
        guard let target = url ?? self.url else { throw PGTestError("PUSH_TEST_DATABASE_URL is not set") }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: psqlPath.hasPrefix("/") ? psqlPath : "/usr/bin/env")
        process.arguments =
            (psqlPath.hasPrefix("/") ? [] : ["psql"]) + ["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", target, "-c", sql]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readUntilEnd()
        let errorData = errors.fileHandleForReading.readUntilEnd()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PGTestError("psql failed: " + String(decoding: errorData, as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A failure of the PostgreSQL tests' tools, with what they said.
public struct PGTestError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String
    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}

/// A schema of its own for one test (`CREATE SCHEMA t_<random>`); stores opened through it
/// use it as their `search_path`. `drop()` removes it with everything in it.
public final class PGTestSchema: Sendable {
    /// The schema's name.
    public let name: String
    /// The URL of the server with the schema as its `search_path`.
    public let url: String

    /// Creates the schema.
    public init() throws {
        guard let base = PGTest.url else { throw PGTestError("PUSH_TEST_DATABASE_URL is not set") }
        name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try PGTest.psql("CREATE SCHEMA \(name)")
        url = Self.url(base, schema: name)
    }

    /// `base` with `schema` as its `search_path` (and `application` as its `application_name`).
    public static func url(_ base: String, schema: String, application: String? = nil) -> String {
        var url = base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema
        if let application { url += "&application_name=" + application }
        return url
    }

    /// Opens a store on the schema (named `application` in pg_stat_activity when given), logging
    /// to `logger`.
    public func open(poolSize: Int = 4, application: String? = nil, logger: Logger = .silent) throws -> PostgresStore {
        try PostgresStore(url: Self.url(PGTest.url ?? "", schema: name, application: application), poolSize: poolSize, logger: logger)
    }

    /// Runs SQL in the schema with psql.
    @discardableResult
    public func psql(_ sql: String) throws -> String {
        try PGTest.psql(sql, url: url)
    }

    /// Drops the schema with everything in it.
    public func drop() {
        _ = try? PGTest.psql("DROP SCHEMA IF EXISTS \(name) CASCADE")
    }
}
