/// Failures of the FCM client that are not an answer to a send.
public enum FCMError: Error, Sendable, Equatable {
    /// The OAuth exchange failed (bad key, refused assertion).
    case auth(String)
    /// No HTTP answer (connection, TLS, timeout).
    case transport(String)
    /// The destination policy refused `token_uri`'s destination (a misconfigured provider):
    /// "destination refused: …".
    case destinationRefused(String)
}
