import Foundation

/// A schema of its own in the PostgreSQL database of `PUSH_TEST_DATABASE_URL` (set by ci.sh
/// from a throwaway cluster, `Scripts/pg-cluster.sh`): created with `psql`, used through a URL
/// whose `options` put it first on the `search_path`, dropped at the end. Tests that need
/// PostgreSQL are enabled only when that variable is set.
struct TestPostgresSchema: Sendable {
    /// The cluster's URL, or nil when the tests run without PostgreSQL.
    static var baseURL: String? {
        ProcessInfo.processInfo.environment["PUSH_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether PostgreSQL tests can run.
    static var isAvailable: Bool { baseURL != nil }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The schema's name.
    let name: String
    /// The database URL with this schema as the search path (what the service is given).
    let url: String
    let baseURL: String

    /// Creates `<prefix>_<random>`.
    init(prefix: String) throws {
        guard let base = Self.baseURL else { throw Failure(description: "PUSH_TEST_DATABASE_URL is not set") }
        baseURL = base
        name = prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        url = base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + name
        _ = try Self.psql(base, "CREATE SCHEMA \(name)")
    }

    /// Runs SQL in the schema and returns psql's unaligned, tuples-only output (`|` between
    /// columns, one row a line).
    func query(_ sql: String) throws -> [String] {
        try Self.psql(url, sql).split(separator: "\n").map(String.init)
    }

    /// Drops the schema and everything in it.
    func drop() {
        _ = try? Self.psql(baseURL, "DROP SCHEMA IF EXISTS \(name) CASCADE")
    }

    /// `psql` of the newest installed PostgreSQL (Debian keeps it under /usr/lib/postgresql).
    static var psqlPath: String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/psql") {
            return "\(root)/\(version)/bin/psql"
        }
        return "/usr/bin/psql"
    }

    /// Runs one SQL command with `psql` (stops at the first error) and returns its output.
    static func psql(_ url: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: psqlPath)
        process.arguments = ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "psql failed (\(process.terminationStatus)): \(String(decoding: err, as: UTF8.self))")
        }
        return String(decoding: out, as: UTF8.self)
    }
}
