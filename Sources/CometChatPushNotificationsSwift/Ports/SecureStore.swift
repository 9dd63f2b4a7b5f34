import Foundation

/// Storage for secrets (the user's auth token). On Apple platforms this is the keychain, with
/// the App Group as access group so the Notification Service Extension can read it.
public protocol PNSecureStore: Sendable {
    /// The secret stored under `key`, or `nil`.
    func secret(forKey key: String) -> String?
    /// Stores `secret` under `key`; `nil` deletes it.
    func setSecret(_ secret: String?, forKey key: String)
}
