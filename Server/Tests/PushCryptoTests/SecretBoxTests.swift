import Foundation
import Testing
import PushCrypto

@Suite struct SecretBoxTests {
    let key = Data(0..<32)

    @Test func aValueSealedByAnIndependentImplementationOpens() throws {
        // Made with Python's `cryptography` (AESGCM): 0x01 ‖ nonce 100…111 ‖ ciphertext ‖ tag,
        // key 0…31, the context as associated data. Values sealed before stay readable.
        let sealed = try #require(
            Data(hex: "016465666768696a6b6c6d6e6f293bae14169f3ffa5b107f9bbf06189836032de76e55ad7f0591ad9fb5691be583"))
        let box = try SecretBox(key: key)
        #expect(try box.open(sealed, context: "provider:app1:apns-prod") == Data("a provider secret".utf8))
    }

    @Test func aSealedValueOpensOnlyWithItsKeyAndContext() throws {
        let box = try SecretBox(key: key)
        let sealed = try box.seal(Data("secret".utf8), context: "row-1")
        #expect(sealed.count == 1 + 12 + 6 + 16)
        #expect(try box.open(sealed, context: "row-1") == Data("secret".utf8))
        #expect(throws: SecretBoxError.authenticationFailed) { try box.open(sealed, context: "row-2") }
        #expect(throws: SecretBoxError.authenticationFailed) {
            try SecretBox(key: Data(repeating: 9, count: 32)).open(sealed, context: "row-1")
        }
        var altered = sealed
        altered[altered.count - 1] ^= 1
        #expect(throws: SecretBoxError.authenticationFailed) { try box.open(altered, context: "row-1") }
        #expect(throws: SecretBoxError.malformed) { try box.open(sealed.prefix(28), context: "row-1") }
        #expect(try box.open(box.seal(Data(), context: ""), context: "").isEmpty)
    }
}
