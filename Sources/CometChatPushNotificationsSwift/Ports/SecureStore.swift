import Foundation

/// Storage for secrets (the user's auth token, the private push key). On Apple platforms this
/// is the keychain, with the App Group as access group so the Notification Service Extension can
/// read it.
public protocol PNSecureStore: Sendable {
    /// The secret stored under `key`, or `nil` (also when the store cannot be read now, such as
    /// the keychain before the first unlock).
    func secret(forKey key: String) -> String?
    /// Stores `secret` under `key`, readable after the first unlock and on this device only
    /// (``PNKeychainAccessibility/afterFirstUnlockThisDeviceOnly``); `nil` deletes it. Throws
    /// when the store refused, for example a keychain access group the app is not entitled to.
    func setSecret(_ secret: String?, forKey key: String) throws
    /// Stores `secret` under `key` with `accessibility`; `nil` deletes it. The default forwards
    /// to ``setSecret(_:forKey:)``.
    func setSecret(_ secret: String?, forKey key: String, accessibility: PNKeychainAccessibility) throws
}

extension PNSecureStore {
    /// Forwards to ``setSecret(_:forKey:)``, whose accessibility is
    /// ``PNKeychainAccessibility/afterFirstUnlockThisDeviceOnly``.
    public func setSecret(_ secret: String?, forKey key: String, accessibility: PNKeychainAccessibility) throws {
        try setSecret(secret, forKey: key)
    }
}

/// When a keychain item can be read (`kSecAttrAccessible…`).
public enum PNKeychainAccessibility: String, Sendable, Equatable, CaseIterable {
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: from the first unlock after a restart
    /// on, also while the device is locked again (the Notification Service Extension and
    /// background launches run then); never in a backup restored to another device.
    case afterFirstUnlockThisDeviceOnly
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`: only while the device is unlocked.
    case whenUnlockedThisDeviceOnly
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

    /// The keychain's `errSecInteractionNotAllowed`: the item cannot be used in this lock state
    /// (before the device's first unlock after a restart).
    public static let interactionNotAllowed: Int32 = -25308
}
