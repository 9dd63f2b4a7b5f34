import Delivery
import PushCrypto
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// The providers of an existing data directory, read without starting the service and
/// without creating any file (for `push-server check-provider`): the database and the secret
/// key must already exist. Works while the service runs (SQLite readers do not block it), on
/// SQLite or PostgreSQL.
public struct StoredProviders: Sendable {
    private let store: any ServiceStore
    private let secrets: ProviderSecrets
    private let box: SecretBox
    private let logger: Logger

    /// Opens the database and the secret key that `configuration` names; the shared provider
    /// token's problems go to `logger`.
    /// - Throws: ``ConfigurationError/invalid(_:)`` with a plain explanation when either is missing.
    public init(configuration: ServiceConfiguration, logger: Logger) throws {
        self.logger = logger
        let database = configuration.resolvedDatabasePath
        guard configuration.postgresURL != nil || FileManager.default.fileExists(atPath: database) else {
            throw ConfigurationError.invalid(
                "no database at \(database): give the service's --data-dir (or --database) to check its providers")
        }
        let keyText: String
        if let text = configuration.secretKey {
            keyText = text
        } else {
            let path = configuration.resolvedSecretKeyFile
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError.invalid(
                    "no secret key: set PUSH_SECRET_KEY as the service has it, or keep \(path) (the key that sealed the providers)")
            }
            keyText = text
        }
        guard let key = KeyFiles.parseKey(keyText) else {
            throw ConfigurationError.invalid("the secret key is not 32 bytes as base64 or 64 hex digits")
        }
        store = try configuration.storeLocation.open(poolSize: 1, sqliteSynchronousFull: false, logger: logger)
        box = try SecretBox(key: key)
        secrets = ProviderSecrets(store: store, secrets: box)
    }

    /// The APNs provider tokens the service's instances share through this database: a test
    /// push uses the token they use instead of signing one more (each new token counts as a
    /// token update at APNs).
    public var providerTokenSharing: any ProviderTokenSharing { StoredProviderTokens(store: store, secrets: box, logger: logger) }

    /// Whether the app exists.
    public func appExists(_ appId: String) throws -> Bool {
        try store.app(id: appId) != nil
    }

    /// The ids of the app's providers.
    public func providerIds(appId: String) throws -> [String] {
        try store.providers(appId: appId).map(\.id)
    }

    /// The provider's credentials, its secret unsealed; nil when there is no such provider.
    /// - Throws: ``ConfigurationError/invalid(_:)`` when the secret does not unseal with this key.
    public func credentials(appId: String, providerId: String) throws -> ProviderCredentials? {
        guard try store.provider(appId: appId, id: providerId) != nil else { return nil }
        do {
            return try secrets.credentials(appId: appId, providerId: providerId)
        } catch {
            throw ConfigurationError.invalid(
                "the provider's key does not unseal with this secret key: use the service's PUSH_SECRET_KEY (or its secret.key)")
        }
    }
}
