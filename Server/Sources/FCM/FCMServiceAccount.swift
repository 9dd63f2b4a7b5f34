import CurlHTTP
import PushCrypto

/// The parts of a Google service account the FCM client needs.
public struct FCMServiceAccount: Sendable {
    /// `project_id`.
    public var projectId: String
    /// `client_email`: the JWT issuer.
    public var clientEmail: String
    /// `private_key_id`: the JWT `kid`.
    public var privateKeyId: String
    /// `token_uri`: the JWT audience and where it is exchanged for an access token.
    public var tokenURI: String
    /// The RSA private key.
    public var privateKey: PrivateKey

    /// Creates an account; throws if the key is not an RSA PEM key.
    public init(projectId: String, clientEmail: String, privateKeyId: String, tokenURI: String, privateKeyPEM: String) throws {
        let key = try PrivateKey(pem: privateKeyPEM)
        guard key.kind == .rsa else { throw CryptoError.invalidKey("FCM needs an RSA key") }
        self.projectId = projectId
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId
        self.tokenURI = tokenURI
        self.privateKey = key
    }
}

extension FCMServiceAccount {
    /// Google's OAuth token endpoints: the `token_uri` of Google's service-account files, and
    /// the two older ones Google still answers at.
    public static let googleTokenURIs: Set<String> = [
        "https://oauth2.googleapis.com/token", "https://accounts.google.com/o/oauth2/token",
        "https://www.googleapis.com/oauth2/v4/token",
    ]

    /// Where the token exchange at `tokenURI` may connect: `base` for Google's endpoints
    /// (public `https` addresses, and `base.allowedBlocks`); any other `token_uri` only into
    /// `base.allowedBlocks` (`--allow-private-destinations`: a test server).
    public static func tokenDestinations(for tokenURI: String, base: DestinationPolicy) -> DestinationPolicy {
        var policy = base
        policy.allowsInsecureLoopback = false
        policy.onlyAllowedBlocks = !googleTokenURIs.contains(tokenURI)
        return policy
    }
}
