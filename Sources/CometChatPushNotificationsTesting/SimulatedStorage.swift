import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// `UserDefaults` of the simulated device: the app's standard suite and App Group suites.
/// Survives a relaunch; shared between the app and its extension through an App Group.
public final class SimulatedDefaults: Sendable {
    private let suites = PNLocked<[String: [String: Data]]>([:])

    /// The suite name of the app's standard defaults.
    public static let standardSuite = "standard"

    /// Creates empty storage.
    public init() {}

    /// A store over one suite.
    public func store(suite: String) -> PNKeyValueStore { Suite(owner: self, name: suite) }

    /// Every value of every suite, for tests that look for secrets in plain storage.
    public var allValues: [String: [String: Data]] { suites.current }

    /// Whether any value in plain storage contains `text`.
    public func contains(_ text: String) -> Bool {
        let needle = Data(text.utf8)
        return suites.current.values.contains { $0.values.contains { $0.range(of: needle) != nil } }
    }

    fileprivate func get(_ suite: String, _ key: String) -> Data? { suites.withLock { $0[suite]?[key] } }
    fileprivate func put(_ suite: String, _ key: String, _ data: Data?) { suites.withLock { $0[suite, default: [:]][key] = data } }

    private struct Suite: PNKeyValueStore {
        let owner: SimulatedDefaults
        let name: String
        func data(forKey key: String) -> Data? { owner.get(name, key) }
        func set(_ data: Data?, forKey key: String) { owner.put(name, key, data) }
    }
}

/// The simulated keychain: items per access group, each with its accessibility. Survives a
/// relaunch. It enforces what the keychain does on a device:
///
/// - an access group is shared only by processes entitled to it: the app and its extension share
///   the App Group's; items saved without one are in each process's own group (the app's is
///   ``appGroup``, the extension's ``extensionGroup``), which the other cannot read;
/// - after a restart nothing is readable or writable until the first unlock
///   (``restartDevice()``, ``unlock()``); `…WhenUnlocked…` items only while unlocked (``lock()``).
public final class SimulatedKeychain: Sendable {
    /// One item: its value and when it can be read.
    public struct Item: Sendable, Equatable {
        /// The secret.
        public var value: String
        /// `kSecAttrAccessible…`.
        public var accessibility: PNKeychainAccessibility
    }

    /// Where the device is in its lock cycle.
    public enum LockState: Sendable, Equatable {
        /// Restarted and not unlocked since: no item can be read or written
        /// (`errSecInteractionNotAllowed`).
        case beforeFirstUnlock
        /// Locked after a first unlock: `…AfterFirstUnlock…` items can be read.
        case locked
        /// Unlocked.
        case unlocked
    }

    private let items = PNLocked<[String: [String: Item]]>([:])
    private let unentitled = PNLocked<Set<String>>([])
    private let lockState = PNLocked(LockState.unlocked)

    /// The access group of the app's items saved without one.
    public static let appGroup = "app"
    /// The access group of the extension's items saved without one.
    public static let extensionGroup = "extension"
    /// `errSecInteractionNotAllowed`: the keychain cannot be used in this lock state.
    public static let interactionNotAllowed = PNSecureStoreError.interactionNotAllowed

    /// Creates an empty keychain on an unlocked device.
    public init() {}

    /// A store over one access group (`nil`: the app's own).
    public func store(accessGroup: String?) -> PNSecureStore { Group(owner: self, name: accessGroup ?? Self.appGroup) }

    /// A store over one access group, with `ownGroup` for items saved without one (the
    /// process's own group: ``appGroup`` or ``extensionGroup``).
    public func store(accessGroup: String?, ownGroup: String) -> PNSecureStore {
        Group(owner: self, name: accessGroup ?? ownGroup)
    }

    /// Every item's value, by access group and key.
    public var allItems: [String: [String: String]] { items.current.mapValues { $0.mapValues(\.value) } }

    /// One item with its accessibility, by access group (``appGroup`` for the app's own) and key,
    /// as a test looks at it (whatever the lock state).
    public func item(accessGroup: String, key: String) -> Item? { items.withLock { $0[accessGroup]?[key] } }

    /// The app lacks the entitlement for `accessGroup` (no Keychain Sharing or App Group
    /// capability with it): reads find nothing and writes fail with `errSecMissingEntitlement`
    /// (-34018), as on a device.
    public func removeEntitlement(accessGroup: String) { unentitled.withLock { _ = $0.insert(accessGroup) } }

    /// The device restarts: until ``unlock()`` nothing in the keychain can be read or written.
    public func restartDevice() { lockState.withLock { $0 = .beforeFirstUnlock } }
    /// The user unlocks the device.
    public func unlock() { lockState.withLock { $0 = .unlocked } }
    /// The device locks (after a first unlock).
    public func lock() { lockState.withLock { if $0 == .unlocked { $0 = .locked } } }
    /// The lock state.
    public var state: LockState { lockState.current }

    private func readable(_ item: Item) -> Bool {
        switch lockState.current {
        case .beforeFirstUnlock: return false
        case .locked: return item.accessibility == .afterFirstUnlockThisDeviceOnly
        case .unlocked: return true
        }
    }

    fileprivate func get(_ group: String, _ key: String) -> String? {
        guard !unentitled.current.contains(group) else { return nil }
        guard let item = items.withLock({ $0[group]?[key] }), readable(item) else { return nil }
        return item.value
    }
    fileprivate func put(_ group: String, _ key: String, _ value: String?, _ accessibility: PNKeychainAccessibility) throws {
        guard !unentitled.current.contains(group) else {
            throw PNSecureStoreError(status: -34018, message: "errSecMissingEntitlement for the access group \(group)")
        }
        let state = lockState.current
        if state == .beforeFirstUnlock || (state == .locked && accessibility == .whenUnlockedThisDeviceOnly) {
            throw PNSecureStoreError(
                status: Self.interactionNotAllowed, message: "errSecInteractionNotAllowed: the device has not been unlocked")
        }
        items.withLock { $0[group, default: [:]][key] = value.map { Item(value: $0, accessibility: accessibility) } }
    }

    private struct Group: PNSecureStore {
        let owner: SimulatedKeychain
        let name: String
        func secret(forKey key: String) -> String? { owner.get(name, key) }
        func setSecret(_ secret: String?, forKey key: String) throws {
            try owner.put(name, key, secret, .afterFirstUnlockThisDeviceOnly)
        }
        func setSecret(_ secret: String?, forKey key: String, accessibility: PNKeychainAccessibility) throws {
            try owner.put(name, key, secret, accessibility)
        }
    }
}
