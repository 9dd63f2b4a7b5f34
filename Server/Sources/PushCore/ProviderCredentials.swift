#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decrypted provider credentials, as the delivery engine needs them.
public enum ProviderCredentials: Sendable, Hashable {
    /// Token-based APNs (`.p8`).
    case apns(APNsCredentials)
    /// FCM HTTP v1 (service account).
    case fcm(FCMCredentials)
}

/// An APNs provider: one `.p8` key serves device and VoIP tokens.
public struct APNsCredentials: Sendable, Hashable {
    /// The key id (JWT `kid`).
    public var keyId: String
    /// The team id (JWT `iss`).
    public var teamId: String
    /// The app's bundle id: `apns-topic` (VoIP adds `.voip`).
    public var bundleId: String
    /// The `.p8` key, PEM text (PKCS#8 P-256). Secret: never log it.
    public var privateKeyPEM: String
    /// `api.push.apple.com` when true, `api.sandbox.push.apple.com` otherwise.
    public var production: Bool
    /// Whether alert pushes also carry `content-available: 1`.
    public var includeContentAvailable: Bool
    /// Whether alert pushes carry `mutable-content: 1` (default true).
    public var includeMutableContent: Bool

    /// Creates credentials.
    public init(
        keyId: String, teamId: String, bundleId: String, privateKeyPEM: String, production: Bool,
        includeContentAvailable: Bool = false, includeMutableContent: Bool = true
    ) {
        self.keyId = keyId
        self.teamId = teamId
        self.bundleId = bundleId
        self.privateKeyPEM = privateKeyPEM
        self.production = production
        self.includeContentAvailable = includeContentAvailable
        self.includeMutableContent = includeMutableContent
    }
}

/// An FCM provider: a Google service account.
public struct FCMCredentials: Sendable, Hashable {
    /// `project_id`.
    public var projectId: String
    /// `client_email` (JWT `iss`).
    public var clientEmail: String
    /// `private_key`, PEM text (RSA). Secret: never log it.
    public var privateKeyPEM: String
    /// `private_key_id` (JWT `kid`).
    public var privateKeyId: String
    /// `token_uri` (JWT `aud`, and where the JWT is exchanged for a bearer token).
    public var tokenURI: String
    /// Whether iOS chat pushes also carry an FCM `notification` block.
    public var notificationForChat: Bool
    /// Whether iOS call pushes also carry an FCM `notification` block.
    public var notificationForCall: Bool

    /// Creates credentials.
    public init(
        projectId: String, clientEmail: String, privateKeyPEM: String, privateKeyId: String,
        tokenURI: String = "https://oauth2.googleapis.com/token", notificationForChat: Bool = true, notificationForCall: Bool = true
    ) {
        self.projectId = projectId
        self.clientEmail = clientEmail
        self.privateKeyPEM = privateKeyPEM
        self.privateKeyId = privateKeyId
        self.tokenURI = tokenURI
        self.notificationForChat = notificationForChat
        self.notificationForCall = notificationForCall
    }
}

/// Looks up (and decrypts) an app's provider. The service implements it over its store.
public protocol ProviderDirectory: Sendable {
    /// The credentials of provider `providerId` of app `appId`, or nil when there is none.
    func credentials(appId: String, providerId: String) throws -> ProviderCredentials?
}
