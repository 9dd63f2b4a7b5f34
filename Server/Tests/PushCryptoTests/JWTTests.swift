import Foundation
import Testing
import PushCrypto

@Suite struct JWTTests {
    let keys: TestKeys

    init() throws { keys = try TestKeys.shared.get() }

    struct GoogleClaims: Encodable {
        let iss: String, scope: String, aud: String, iat: Int64, exp: Int64
    }

    @Test func es256TokenVerifiesWithAnIndependentImplementation() throws {
        // Given an APNs key
        let key = try PrivateKey(pem: keys.ecPrivatePEM)
        let provider = try APNsTokenProvider(
            key: key, keyId: "ABC123DEFG", teamId: "TEAM123456",
            now: { Date(timeIntervalSince1970: 1_700_000_000) })

        // When a token is signed
        let token = try provider.token()

        // Then Python's cryptography accepts it, with APNs' header and claims
        let decoded = try #require(try keys.verify(token: token.value, publicKeyPath: keys.ecPublicPath))
        #expect(decoded["header"]?["alg"] as? String == "ES256")
        #expect(decoded["header"]?["kid"] as? String == "ABC123DEFG")
        #expect(decoded["claims"]?["iss"] as? String == "TEAM123456")
        #expect(decoded["claims"]?["iat"] as? Int == 1_700_000_000)
        #expect(Base64URL.decode(String(token.value.split(separator: ".")[2]))?.count == 64)
    }

    @Test func manyEs256SignaturesAllVerify() throws {
        // Raw r‖s padding bugs show up only for some signatures (short r or s): sign many.
        let key = try PrivateKey(pem: keys.ecPrivatePEM)
        for i in 0..<40 {
            let token = try JWT.sign(["n": i], with: key, keyId: "K")
            #expect(try keys.verify(token: token, publicKeyPath: keys.ecPublicPath) != nil)
        }
    }

    @Test func rs256TokenVerifiesWithAnIndependentImplementation() throws {
        // Given a service-account key
        let key = try PrivateKey(pem: keys.rsaPrivatePEM)
        #expect(key.kind == .rsa)

        // When a Google OAuth assertion is signed
        let claims = GoogleClaims(
            iss: "svc@example.iam.gserviceaccount.com",
            scope: "https://www.googleapis.com/auth/firebase.messaging",
            aud: "https://127.0.0.1/token", iat: 1_700_000_000, exp: 1_700_003_600)
        let token = try JWT.sign(claims, with: key, keyId: "kid-1", type: "JWT")

        // Then it verifies, and the claims survive
        let decoded = try #require(try keys.verify(token: token, publicKeyPath: keys.rsaPublicPath))
        #expect(decoded["header"]?["alg"] as? String == "RS256")
        #expect(decoded["claims"]?["aud"] as? String == "https://127.0.0.1/token")
        #expect(decoded["claims"]?["exp"] as? Int == 1_700_003_600)
    }

    @Test func aTamperedTokenIsRejectedByTheVerifier() throws {
        let key = try PrivateKey(pem: keys.ecPrivatePEM)
        let token = try JWT.sign(["iss": "A"], with: key, keyId: "K")
        let parts = token.split(separator: ".").map(String.init)
        let forged = parts[0] + "." + Base64URL.encode(Array(#"{"iss":"B"}"#.utf8)) + "." + parts[2]
        #expect(try keys.verify(token: forged, publicKeyPath: keys.ecPublicPath) == nil)
    }

    @Test func garbageIsNotAKey() {
        #expect(throws: CryptoError.self) { try PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
    }
}
