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

/// The simulated keychain: items per access group. Survives a relaunch; the App Group access
/// group is shared with the extension.
public final class SimulatedKeychain: Sendable {
    private let items = PNLocked<[String: [String: String]]>([:])
    private let unentitled = PNLocked<Set<String>>([])

    /// The access group of items saved without one.
    public static let appGroup = "app"

    /// Creates an empty keychain.
    public init() {}

    /// A store over one access group (`nil`: the app's own).
    public func store(accessGroup: String?) -> PNSecureStore { Group(owner: self, name: accessGroup ?? Self.appGroup) }

    /// Every item, by access group and key.
    public var allItems: [String: [String: String]] { items.current }

    /// The app lacks the entitlement for `accessGroup` (no Keychain Sharing or App Group
    /// capability with it): reads find nothing and writes fail with `errSecMissingEntitlement`
    /// (-34018), as on a device.
    public func removeEntitlement(accessGroup: String) { unentitled.withLock { _ = $0.insert(accessGroup) } }

    fileprivate func get(_ group: String, _ key: String) -> String? {
        guard !unentitled.current.contains(group) else { return nil }
        return items.withLock { $0[group]?[key] }
    }
    fileprivate func put(_ group: String, _ key: String, _ value: String?) throws {
        guard !unentitled.current.contains(group) else {
            throw PNSecureStoreError(status: -34018, message: "errSecMissingEntitlement for the access group \(group)")
        }
        items.withLock { $0[group, default: [:]][key] = value }
    }

    private struct Group: PNSecureStore {
        let owner: SimulatedKeychain
        let name: String
        func secret(forKey key: String) -> String? { owner.get(name, key) }
        func setSecret(_ secret: String?, forKey key: String) throws { try owner.put(name, key, secret) }
    }
}
