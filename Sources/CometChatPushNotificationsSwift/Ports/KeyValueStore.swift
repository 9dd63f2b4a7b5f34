import Foundation

/// Plain persistent storage for non-secret values: cached push tokens, registration records
/// and the saved configuration. On Apple platforms this is `UserDefaults` (the App Group's
/// suite when one is configured).
///
/// Never store an auth token here; use ``PNSecureStore``.
public protocol PNKeyValueStore: Sendable {
    /// The data stored under `key`, or `nil`.
    func data(forKey key: String) -> Data?
    /// Stores `data` under `key`; `nil` removes the value.
    func set(_ data: Data?, forKey key: String)
}
