/// Errors a store throws.
public enum StoreError: Error, Sendable, Equatable {
    /// A row with the same key exists.
    case conflict
    /// The row to update does not exist.
    case notFound
    /// The database failed; the message never contains secrets.
    case database(String)
}
