import Foundation

/// Storage for secrets (the user's auth token). On Apple platforms this is the keychain, with
/// the App Group as access group so the Notification Service Extension can read it.
public protocol PNSecureStore: Sendable {
    /// The secret stored under `key`, or `nil`.
    func secret(forKey key: String) -> String?
    /// Stores `secret` under `key`; `nil` deletes it. Throws when the store refused, for
    /// example a keychain access group the app is not entitled to.
    func setSecret(_ secret: String?, forKey key: String) throws
}

/// Why the secure store refused a write.
public struct PNSecureStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store's status code (the keychain's `OSStatus`, such as -34018).
    public var status: Int32
    /// What it means and what to do.
    public var message: String

    /// Creates an error.
    public init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// The status and the message.
    public var description: String { "\(message) (status \(status))" }
}
