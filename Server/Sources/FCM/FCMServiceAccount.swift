import PushCrypto

/// The parts of a Google service account the FCM client needs.
public struct FCMServiceAccount: Sendable {
    /// `project_id`.
    public var projectID: String
    /// `client_email`: the JWT issuer.
    public var clientEmail: String
    /// `private_key_id`: the JWT `kid`.
    public var privateKeyID: String
    /// `token_uri`: the JWT audience and where it is exchanged for an access token.
    public var tokenURI: String
    /// The RSA private key.
    public var privateKey: PrivateKey

    /// Creates an account; throws if the key is not an RSA PEM key.
    public init(projectID: String, clientEmail: String, privateKeyID: String, tokenURI: String, privateKeyPEM: String) throws {
        let key = try PrivateKey(pem: privateKeyPEM)
        guard key.kind == .rsa else { throw CryptoError.invalidKey("FCM needs an RSA key") }
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.tokenURI = tokenURI
        self.privateKey = key
    }
}
