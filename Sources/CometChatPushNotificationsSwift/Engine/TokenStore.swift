import Foundation

/// What was last registered for one platform, to avoid sending the same token for the same
/// user again. Holds no secret: the user is identified by uid or by an auth-token fingerprint.
struct RegistrationRecord: Codable, Equatable, Sendable {
    var token: String
    var userKey: String
    var providerId: String
    var registeredAt: Date
    /// The fingerprint of the private push key sent with it (issue 28), if one was.
    var encryptionKey: String? = nil
    /// The preferred languages sent with it (issue 30), if any were: a self-hosted service only.
    /// Records saved before the field existed decode as `nil`.
    var languages: [String]? = nil
}

/// The last outcome of a registration for one platform, for diagnostics.
struct RegistrationOutcome: Codable, Equatable, Sendable {
    var succeeded: Bool
    var at: Date
    var errorCode: String?
    var message: String?
}

/// The configuration minus the auth token, saved so that a launch started by a push (or the
/// Notification Service Extension) knows the app.
struct SavedConfiguration: Codable, Equatable, Sendable {
    var appId: String
    var region: String
    var providerId: String?
    var extensionGroupID: String?
    var enableBadgeCount: Bool
    var showInAppNotifications: Bool
    var clientHost: String?
    var tokenRegistrar: PNTokenRegistrar

    init(_ config: PNConfiguration) {
        appId = config.appId
        region = config.region
        providerId = config.providerId
        extensionGroupID = config.extensionGroupID
        enableBadgeCount = config.enableBadgeCount
        showInAppNotifications = config.showInAppNotifications
        clientHost = config.clientHost
        tokenRegistrar = config.tokenRegistrar
    }
}

/// Persistent, non-secret state of the token lifecycle: cached tokens, registration records and
/// outcomes, and the saved configuration.
struct TokenStore: Sendable {
    let store: PNKeyValueStore

    private enum Key {
        static let tokens = "com.cometchat.push.tokens"
        static let records = "com.cometchat.push.registrations"
        static let outcomes = "com.cometchat.push.outcomes"
        static let configuration = "com.cometchat.push.configuration"
    }

    private func read<T: Decodable>(_ type: T.Type, _ key: String) -> T? {
        guard let data = store.data(forKey: key) else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }

    private func write<T: Encodable>(_ value: T?, _ key: String) {
        guard let value else { return store.set(nil, forKey: key) }
        store.set(try? JSONEncoder().encode(value), forKey: key)
    }

    /// A per-platform map, stored under the platforms' `rawName`s.
    private func readByPlatform<T: Codable>(_ type: T.Type, _ key: String) -> [CometChatPushTokenPlatform: T] {
        let raw = read([String: T].self, key) ?? [:]
        var out: [CometChatPushTokenPlatform: T] = [:]
        for platform in CometChatPushTokenPlatform.allCases {
            if let value = raw[platform.rawName] { out[platform] = value }
        }
        return out
    }

    private func writeByPlatform<T: Codable>(_ value: [CometChatPushTokenPlatform: T], _ key: String) {
        write(Dictionary(uniqueKeysWithValues: value.map { ($0.key.rawName, $0.value) }), key)
    }

    var tokens: [CometChatPushTokenPlatform: String] {
        get { readByPlatform(String.self, Key.tokens) }
        nonmutating set { writeByPlatform(newValue, Key.tokens) }
    }

    var records: [CometChatPushTokenPlatform: RegistrationRecord] {
        get { readByPlatform(RegistrationRecord.self, Key.records) }
        nonmutating set { writeByPlatform(newValue, Key.records) }
    }

    var outcomes: [String: RegistrationOutcome] {
        get { read([String: RegistrationOutcome].self, Key.outcomes) ?? [:] }
        nonmutating set { write(newValue, Key.outcomes) }
    }

    var savedConfiguration: SavedConfiguration? {
        get { read(SavedConfiguration.self, Key.configuration) }
        nonmutating set { write(newValue, Key.configuration) }
    }
}
