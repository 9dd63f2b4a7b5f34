import Foundation

/// ``PNKeyValueStore`` on `UserDefaults`: the standard suite, or an App Group's suite.
struct UserDefaultsStore: PNKeyValueStore, @unchecked Sendable {
    // @unchecked: UserDefaults is thread-safe (documented by Apple; guarded in corelibs).
    let defaults: UserDefaults

    init(suiteName: String? = nil) {
        defaults = suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    func data(forKey key: String) -> Data? { defaults.data(forKey: key) }

    func set(_ data: Data?, forKey key: String) {
        if let data { defaults.set(data, forKey: key) } else { defaults.removeObject(forKey: key) }
    }
}
