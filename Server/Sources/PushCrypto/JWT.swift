#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds compact JWS tokens (header.claims.signature) signed with a `PrivateKey`.
public enum JWT {
    /// The JOSE header fields we emit.
    struct Header: Encodable {
        let alg: String
        let kid: String?
        let typ: String?
    }

    /// Signs `claims` with `key`: ES256 for P-256 keys, RS256 for RSA keys.
    /// - Parameters:
    ///   - claims: the claims object, encoded as JSON with sorted keys.
    ///   - key: the signing key.
    ///   - keyId: the `kid` header, if any.
    ///   - type: the `typ` header, if any (Google expects `JWT`; APNs needs none).
    public static func sign<Claims: Encodable>(
        _ claims: Claims, with key: PrivateKey, keyId: String?, type: String? = nil
    ) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = Header(alg: key.kind == .p256 ? "ES256" : "RS256", kid: keyId, typ: type)
        let signingInput =
            Base64URL.encode(try encoder.encode(header)) + "."
            + Base64URL.encode(try encoder.encode(claims))
        let signature = try key.signSHA256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
