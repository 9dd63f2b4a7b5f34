#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CLibPQ
import PushCore

/// The store for several instances: PostgreSQL through libpq. (Being written: opening one
/// throws until then.)
public final class PostgresStore: @unchecked Sendable {
    /// The schema version after migrations.
    public let schemaVersion: Int

    /// Opens a pool of `poolSize` connections to `url` (a libpq connection URI,
    /// `postgres://user@host:port/db?…`) and migrates the database.
    public init(url: String, poolSize: Int = 8) throws {
        _ = PQlibVersion()
        throw StoreError.database("the PostgreSQL store is not built yet")
    }

    /// Registers what runs when any instance on the database adds jobs (LISTEN/NOTIFY).
    public func onJobsAdded(_ handler: @escaping @Sendable () -> Void) {}

    /// Closes the pool and the listener.
    public func close() {}
}
