#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// A registered push token: unique per app; belongs to the user who registered it last.
public struct PushTokenRecord: Sendable, Hashable {
    /// The app.
    public var appId: String
    /// The owner.
    public var uid: String
    /// The token text.
    public var token: String
    /// The kind of token.
    public var platform: TokenPlatform
    /// The provider to send with.
    public var providerId: String
    /// The device's IANA time zone, if given.
    public var timezone: String?
    /// SHA-256 of the auth token that registered it (unregister finds tokens by it).
    public var authTokenHash: Data
    /// The hint of that auth token.
    public var authTokenHint: String
    /// First registration.
    public var createdAt: Date
    /// Last registration.
    public var updatedAt: Date
    /// The APNs environment, when the app sent it at registration or a send found it.
    public var environment: TokenEnvironment?
    /// The device's Web Push keys for private pushes, when it sent them at registration.
    public var encryption: StoredEncryptionKeys?
    /// The device's preferred languages (BCP-47 tags, most preferred first) when it sent them at
    /// registration (issue 30); empty when it did not.
    public var languages: [String]

    /// Creates a record.
    public init(
        appId: String, uid: String, token: String, platform: TokenPlatform, providerId: String,
        timezone: String?, authTokenHash: Data, authTokenHint: String, createdAt: Date, updatedAt: Date,
        environment: TokenEnvironment? = nil, encryption: StoredEncryptionKeys? = nil, languages: [String] = []
    ) {
        self.languages = languages
        self.encryption = encryption
        self.environment = environment
        self.appId = appId
        self.uid = uid
        self.token = token
        self.platform = platform
        self.providerId = providerId
        self.timezone = timezone
        self.authTokenHash = authTokenHash
        self.authTokenHint = authTokenHint
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension PushTokenRecord {
    /// The stored text of ``languages`` (the `push_tokens.languages` column): the tags joined
    /// by commas (a tag never has one); nil when there are none.
    public var storedLanguages: String? { languages.isEmpty ? nil : languages.joined(separator: ",") }

    /// ``languages`` from its stored text.
    public static func languages(storedText: String?) -> [String] {
        guard let storedText, !storedText.isEmpty else { return [] }
        return storedText.split(separator: ",").map(String.init)
    }
}
