#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a push of a `private` app keeps for its sealing at send time (issue 28,
/// `docs/design/private-push.md`).
///
/// The job's ``PushJob/payload`` is then the part that goes in clear (a placeholder `aps`
/// and the push id); the sender adds `enc`, ``plaintext`` encrypted for the token's key as
/// stored when it sends (RFC 8291), or sends the clear part alone when the token has no key.
public struct PrivatePush: Sendable, Hashable {
    /// The payload to encrypt: the standard §4 payload (UTF-8 JSON), already fitted to the
    /// size budget.
    public var plaintext: Data
    /// The optional fields the service removed so that the sealed push fits, in the order
    /// removed (`message`, `custom`, `body`); empty when nothing was.
    public var trimmed: [String]

    /// Creates a value.
    public init(plaintext: Data, trimmed: [String] = []) {
        self.plaintext = plaintext
        self.trimmed = trimmed
    }
}

/// A device's Web Push encryption keys as the store keeps them: the public key in clear, the
/// auth secret sealed by the service (the store never sees it in clear).
public struct StoredEncryptionKeys: Sendable, Hashable {
    /// The device's P-256 public key, 65 bytes, uncompressed (`p256dh`).
    public var p256dh: Data
    /// The 16-byte auth secret, sealed with the service's secret key under
    /// ``sealingContext(appId:token:)``.
    public var sealedAuth: Data

    /// Creates a value.
    public init(p256dh: Data, sealedAuth: Data) {
        self.p256dh = p256dh
        self.sealedAuth = sealedAuth
    }

    /// The authenticated context an auth secret is sealed under, so that a sealed secret
    /// cannot be moved to another token's row.
    public static func sealingContext(appId: String, token: String) -> String {
        "push-encryption:\(appId):\(token)"
    }
}

/// Where the sender of private pushes finds the tokens' keys at send time. Both stores of
/// PushStore have it.
public protocol EncryptionKeyStore: Sendable {
    /// The stored keys of those of `tokens` (of app `appId`) that have them, by token.
    func encryptionKeys(appId: String, tokens: [String]) throws -> [String: StoredEncryptionKeys]
}
