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
import PushService
import PushStore

/// `push-server migrate-store`: copies every table of one store into an empty one (SQLite to
/// PostgreSQL, or back), in batches, then compares the row counts of each table.
enum MigrateStoreCommand {
    struct Options: Equatable {
        var from: StoreLocation
        var to: StoreLocation
        var batch = 1000
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let help = """
        USAGE: push-server migrate-store --from <store> [--to <store>] [--batch <rows>]

        Copies every table of a service's store into another, empty, store: to move from SQLite to
        PostgreSQL (or back), e.g.
          push-server migrate-store --from sqlite:/var/lib/push-server/push.sqlite \\
                                    --to postgres://push@db.internal:5432/push
        A store is postgres://user[:password]@host[:port]/database[?options] (a libpq URL;
        postgresql:// too), sqlite:<path>, or a file path.

        Stop the service first (every instance): jobs, tokens and idempotency records written while
        the copy runs would be missed. Then:
          1. the destination must be empty: one that holds any row is refused and nothing is written,
             and so is a destination that is the source;
          2. each table is copied in batches of --batch rows, one transaction per batch, in an order
             that keeps the foreign keys (apps first);
          3. the rows of each table are counted in both stores and printed; they must match.
        Provider keys, webhook secrets and cached provider tokens are copied sealed, as they are:
        start the service on the destination with the SAME secret key (PUSH_SECRET_KEY, or the
        secret key file of its data directory), or it cannot open them.
        Passwords in URLs are never printed; rather than putting one on the command line (visible
        to other users in ps), use PGPASSWORD or ~/.pgpass, which libpq reads.

        EXIT STATUS: 0 when everything was copied and the counts match; 1 when the copy was refused
        or failed (the output says why); 64 for a usage error.

        OPTIONS:
          --from <store>    The store to read (required; a SQLite file must exist).
          --to <store>      The store to fill (a new SQLite file is created); default: the
                            PUSH_DATABASE_URL environment variable (keeps a password off
                            the command line).
          --batch <rows>    Rows per batch and transaction (default 1000; 1…100000).
          -h, --help        Show this text.
        """

    static func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> Options {
        var from: StoreLocation?
        var to: StoreLocation?
        var batch = 1000
        var index = 0
        while index < arguments.count {
            let flag = SubcommandFlag(arguments[index])
            guard ["--from", "--to", "--batch"].contains(flag.name) else {
                throw UsageError(description: "unknown option \(StoreLocation.redact(flag.name)) (push-server help migrate-store)")
            }
            let value: String
            do {
                value = try flag.value(in: arguments, index: &index)
            } catch let error as CheckProviderCommand.UsageError {
                throw UsageError(description: error.description)
            }
            switch flag.name {
            case "--from": from = try location(value, flag: flag.name)
            case "--to": to = try location(value, flag: flag.name)
            default:
                guard let rows = Int(value), (1...100_000).contains(rows) else {
                    throw UsageError(description: "--batch must be 1…100000 rows")
                }
                batch = rows
            }
        }
        if to == nil, let url = environment["PUSH_DATABASE_URL"], !url.isEmpty {
            to = try location(url, flag: "PUSH_DATABASE_URL")
        }
        guard let from, let to else {
            throw UsageError(description: "--from and --to (or PUSH_DATABASE_URL) are required (push-server help migrate-store)")
        }
        return Options(from: from, to: to, batch: batch)
    }

    static func location(_ text: String, flag: String) throws -> StoreLocation {
        do {
            return try StoreLocation.parse(text)
        } catch {
            throw UsageError(description: "\(flag): \(error)")
        }
    }

    /// Runs the copy and returns the exit status. Every message goes through
    /// ``StoreLocation/redact(_:)``: no password reaches the output.
    static func run(
        _ arguments: [String], environment: [String: String], print: (String) -> Void, fail rawFail: (String) -> Void
    ) -> Int32 {
        func fail(_ message: String) { rawFail("push-server migrate-store: " + StoreLocation.redact(message)) }
        func say(_ message: String) { print(StoreLocation.redact(message)) }
        let options: Options
        do {
            options = try parse(arguments, environment: environment)
        } catch {
            fail("\(error)")
            return 64
        }
        let (from, to) = (options.from, options.to)
        guard !from.isSameStore(as: to) else {
            fail("the source and the destination are the same store (\(from)); nothing was written")
            return 1
        }
        if case .sqlite(let path) = from, access(path, F_OK) != 0 {
            fail("no SQLite file at \(path) (the source must exist); nothing was written")
            return 1
        }
        var createdFile: String?
        if case .sqlite(let path) = to, access(path, F_OK) != 0 { createdFile = path }

        let source: any ServiceStore
        let destination: any ServiceStore
        do {
            source = try from.open(poolSize: 2, logger: .silent)
        } catch {
            fail("cannot open the source \(from): \(describe(error)); nothing was written")
            return 1
        }
        do {
            destination = try to.open(poolSize: 2, logger: .silent)
        } catch {
            if let createdFile { removeSQLiteFile(createdFile) }
            fail("cannot open the destination \(to): \(describe(error)); nothing was written")
            return 1
        }

        // 1. An empty destination only.
        do {
            let held = try StoreTable.allCases.map { ($0, try destination.rowCount(table: $0)) }.filter { $0.1 > 0 }
            guard held.isEmpty else {
                fail(
                    "the destination \(to) already holds rows ("
                        + held.map { "\($0.0.rawValue): \($0.1)" }.joined(separator: ", ")
                        + "); migrate-store only fills an empty store. Nothing was written.")
                return 1
            }
        } catch {
            fail("cannot read the destination \(to): \(describe(error)); nothing was written")
            return 1
        }

        // 2. Every table, in batches.
        say("migrate-store: copying \(from) (\(from.kind)) to \(to) (\(to.kind)), \(options.batch) rows per batch")
        let started = Date()
        for table in StoreTable.allCases {
            var copied = 0
            do {
                try source.exportRows(table: table, batchSize: options.batch) { rows in
                    try destination.importRows(table: table, rows: rows)
                    copied += rows.count
                }
            } catch {
                let cleanup: String
                if let createdFile {
                    removeSQLiteFile(createdFile)
                    cleanup = "the new file \(createdFile) was deleted"
                } else {
                    cleanup = "the destination holds a partial copy: empty it (drop and create the database or schema) before trying again"
                }
                fail("copying \(table.rawValue) failed after \(copied) rows: \(describe(error)); \(cleanup)")
                return 1
            }
            say("  \(table.rawValue.padding(to: 16)) \(copied) row\(copied == 1 ? "" : "s") copied")
        }

        // 3. The counts, table by table.
        say("migrate-store: rows per table (source -> destination):")
        var mismatches: [String] = []
        for table in StoreTable.allCases {
            do {
                let (a, b) = (try source.rowCount(table: table), try destination.rowCount(table: table))
                say("  \(table.rawValue.padding(to: 16)) \(a) -> \(b)\(a == b ? "" : "  DIFFERENT")")
                if a != b { mismatches.append(table.rawValue) }
            } catch {
                fail("cannot count \(table.rawValue): \(describe(error))")
                return 1
            }
        }
        guard mismatches.isEmpty else {
            fail("the row counts differ for \(mismatches.joined(separator: ", ")): was the service still running?")
            return 1
        }
        let tenths = Int((Date().timeIntervalSince(started) * 10).rounded())
        say("migrate-store: done in \(tenths / 10).\(tenths % 10) s; every table's rows match.")
        say(
            "note  provider keys, webhook secrets and provider tokens were copied sealed: start the service on the "
                + "destination with the same secret key as before (PUSH_SECRET_KEY, or the secret key file of the old "
                + "data directory), e.g. push-server --database \(to)\(to.kind == "PostgreSQL" ? " (or PUSH_DATABASE_URL)" : "").")
        return 0
    }

    /// A store error in words (a ``StoreError`` carries its database's message).
    static func describe(_ error: any Error) -> String {
        switch error {
        case StoreError.database(let message): return message
        case StoreError.conflict: return "a row with the same key exists in the destination"
        case StoreError.notFound: return "a row is missing"
        default: return "\(error)"
        }
    }

    /// Deletes a SQLite file this command created (with its WAL and shared-memory files).
    static func removeSQLiteFile(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}

extension String {
    /// The string padded with spaces to `width` characters (longer strings are kept whole).
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
