#if canImport(Security)
import Foundation
import Security

/// ``PNSecureStore`` on the keychain: generic passwords under one service, in the App Group's
/// access group when one is given, readable after the first unlock (the Notification Service
/// Extension and background launches run while the device is locked).
struct KeychainStore: PNSecureStore {
    let service = "com.cometchat.pushnotifications"
    let accessGroup: String?

    private func query(_ key: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: key,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    func secret(forKey key: String) -> String? {
        var query = query(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }

    func setSecret(_ secret: String?, forKey key: String) throws {
        try setSecret(secret, forKey: key, accessibility: .afterFirstUnlockThisDeviceOnly)
    }

    func setSecret(_ secret: String?, forKey key: String, accessibility: PNKeychainAccessibility) throws {
        let base = query(key)
        guard let secret else {
            let status = SecItemDelete(base as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status, "SecItemDelete") }
            return
        }
        // This device only: the auth token and the private push key must not travel to another
        // device in a backup.
        let attributes: [String: Any] = [
            kSecValueData as String: Data(secret.utf8),
            kSecAttrAccessible as String: Self.attribute(accessibility),
        ]
        var status = SecItemUpdate(base as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            var insert = base
            insert.merge(attributes) { _, new in new }
            status = SecItemAdd(insert as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw Self.error(status, "Saving to the keychain") }
    }

    private static func attribute(_ accessibility: PNKeychainAccessibility) -> CFString {
        switch accessibility {
        case .afterFirstUnlockThisDeviceOnly: return kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenUnlockedThisDeviceOnly: return kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        }
    }

    private static func error(_ status: OSStatus, _ what: String) -> PNSecureStoreError {
        if status == errSecMissingEntitlement {
            return PNSecureStoreError(
                status: status,
                message: "\(what) failed: the app is not entitled to the keychain access group. Add the App Group "
                    + "(the same as extensionGroupID) to the Keychain Sharing or App Groups capability of the app and the extension.")
        }
        return PNSecureStoreError(status: status, message: "\(what) failed")
    }
}
#endif
