import Foundation
import Testing
import PushCrypto

/// RFC 8291 Appendix A: the inputs and the encrypted message of the example in §5. Checked
/// against an independent implementation (Python's `cryptography`) before they were written
/// here: the same keys and salt give the same message, and every intermediate value of the
/// appendix (ECDH secret, IKM, PRK, CEK, nonce) matches.
private enum RFC8291 {
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
    static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let asPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let message =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A"
        + "_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    /// The appendix's intermediate values.
    static let ecdhSecret = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"
    static let cek = "oIhVW04MRdy2XN9CiKLxTg"
    static let nonce = "4h_95klXJ5E_qnoN"

    static func bytes(_ text: String) throws -> [UInt8] { try #require(Base64URL.decode(text)) }
}

@Suite struct WebPushEncryptionTests {
    // MARK: RFC 8291 Appendix A

    @Test func theRFCExampleEncryptsToTheRFCMessage() throws {
        // Given the example's device keys, its application-server key and its salt
        let keys = try WebPushKeys(p256dh: RFC8291.uaPublic, auth: RFC8291.auth)
        let sender = try P256KeyAgreementKey(privateScalar: RFC8291.bytes(RFC8291.asPrivate))
        #expect(try sender.publicKey == RFC8291.bytes(RFC8291.asPublic))

        // When the plaintext is encrypted with them
        let message = try WebPushEncryption.encrypt(
            RFC8291.plaintext, for: keys, ephemeralScalar: RFC8291.bytes(RFC8291.asPrivate), salt: RFC8291.bytes(RFC8291.salt))

        // Then the message is the RFC's, byte for byte
        #expect(Base64URL.encode(message) == RFC8291.message)
        #expect(message.count == RFC8291.plaintext.count + WebPushEncryption.overhead)
    }

    /// RFC 8291's key schedule through OpenSSL's HKDF, as the reference: the CEK and the nonce
    /// are each one HKDF (extract and expand) of the IKM with the salt.
    static func keysThroughHKDF(
        secret: [UInt8], auth: [UInt8], device: [UInt8], sender: [UInt8], salt: [UInt8]
    ) -> (key: [UInt8], nonce: [UInt8]) {
        let keyInfo = Data(Array("WebPush: info".utf8) + [0] + device + sender)
        let ikm = Crypto.hkdfSHA256(key: Data(secret), salt: Data(auth), info: keyInfo, length: 32)
        let key = Crypto.hkdfSHA256(key: ikm, salt: Data(salt), info: Data(Array("Content-Encoding: aes128gcm".utf8) + [0]), length: 16)
        let nonce = Crypto.hkdfSHA256(key: ikm, salt: Data(salt), info: Data(Array("Content-Encoding: nonce".utf8) + [0]), length: 12)
        return ([UInt8](key), [UInt8](nonce))
    }

    @Test func theKeyScheduleGivesTheRFCsKeyAndNonceThroughHMACAndThroughHKDF() throws {
        let inputs = (
            secret: try RFC8291.bytes(RFC8291.ecdhSecret), auth: try RFC8291.bytes(RFC8291.auth),
            device: try RFC8291.bytes(RFC8291.uaPublic), sender: try RFC8291.bytes(RFC8291.asPublic),
            salt: try RFC8291.bytes(RFC8291.salt)
        )
        let viaHMAC = try WebPushEncryption.contentKeys(
            sharedSecret: inputs.secret, auth: inputs.auth, devicePublic: inputs.device, senderPublic: inputs.sender, salt: inputs.salt)
        let viaHKDF = Self.keysThroughHKDF(
            secret: inputs.secret, auth: inputs.auth, device: inputs.device, sender: inputs.sender, salt: inputs.salt)
        #expect(viaHMAC.key == (try RFC8291.bytes(RFC8291.cek)))
        #expect(viaHMAC.nonce == (try RFC8291.bytes(RFC8291.nonce)))
        #expect(viaHKDF.key == viaHMAC.key && viaHKDF.nonce == viaHMAC.nonce)
        // And on other inputs: the two ways agree.
        for _ in 0..<50 {
            let random = { (count: Int) in [UInt8](Crypto.randomBytes(count)) }
            let (secret, auth, device, sender, salt) = (random(32), random(16), random(65), random(65), random(16))
            let a = try WebPushEncryption.contentKeys(
                sharedSecret: secret, auth: auth, devicePublic: device, senderPublic: sender, salt: salt)
            let b = Self.keysThroughHKDF(secret: secret, auth: auth, device: device, sender: sender, salt: salt)
            #expect(a.key == b.key && a.nonce == b.nonce)
        }
    }

    @Test func theRFCMessageDecryptsToTheRFCPlaintext() throws {
        let device = try P256KeyAgreementKey(privateScalar: RFC8291.bytes(RFC8291.uaPrivate))
        #expect(try device.publicKey == RFC8291.bytes(RFC8291.uaPublic))

        let plaintext = try WebPushEncryption.decrypt(
            RFC8291.bytes(RFC8291.message), with: device, auth: RFC8291.bytes(RFC8291.auth))

        #expect(plaintext == RFC8291.plaintext)
    }

    // MARK: Round trips

    @Test(arguments: [0, 1, 41, 2_800, WebPushEncryption.maximumPlaintextLength])
    func aFreshMessageDecryptsOnTheDevice(length: Int) throws {
        // Given a device, and a plaintext that ends in zeros (the padding must not eat them)
        let device = try Device()
        var plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
        if length >= 2 { plaintext.replaceSubrange((length - 2)..., with: [0, 0]) }

        // When it is encrypted twice
        let first = try WebPushEncryption.encrypt(plaintext, for: device.keys)
        let second = try WebPushEncryption.encrypt(plaintext, for: device.keys)

        // Then each opens to the plaintext, and they share no salt, key or ciphertext
        #expect(try WebPushEncryption.decrypt(first, with: device.key, auth: device.auth) == plaintext)
        #expect(try WebPushEncryption.decrypt(second, with: device.key, auth: device.auth) == plaintext)
        #expect(first.count == plaintext.count + WebPushEncryption.overhead)
        #expect(first[0..<16] != second[0..<16])
        #expect(first[21..<86] != second[21..<86])
        #expect(first[86...] != second[86...])
        // The header: record size 4,096, a 65-byte key id holding an uncompressed point
        #expect(Array(first[16..<21]) == [0, 0, 0x10, 0, 65])
        #expect(first[21] == 0x04)
    }

    @Test func saltsDrawnTogetherAreEachUsedOnceAndGoIntoTheirMessage() throws {
        // Given salts drawn for three messages
        let device = try Device()
        var salts = WebPushEncryption.Salts(count: 3)

        // When four messages are sealed with them (one more than drawn)
        var messages: [[UInt8]] = []
        var given: [[UInt8]] = []
        for index in 0..<4 {
            let salt = salts.next()
            given.append(Array(salt))
            messages.append(try WebPushEncryption.encrypt([UInt8(index)], for: device.keys, salt: salt))
        }

        // Then each message carries its own salt, all four differ, and each opens
        #expect(given.allSatisfy { $0.count == WebPushEncryption.saltLength })
        #expect(Set(given).count == 4)
        for (index, message) in messages.enumerated() {
            #expect(Array(message[0..<16]) == given[index])
            #expect(try WebPushEncryption.decrypt(message, with: device.key, auth: device.auth) == [UInt8(index)])
        }
    }

    @Test func aPlaintextOverOneRecordIsRefused() throws {
        let device = try Device()
        let plaintext = [UInt8](repeating: 0x41, count: WebPushEncryption.maximumPlaintextLength + 1)
        #expect(WebPushEncryption.maximumPlaintextLength == 3_993)
        #expect(throws: WebPushError.plaintextTooLarge(length: 3_994)) {
            try WebPushEncryption.encrypt(plaintext, for: device.keys)
        }
    }

    // MARK: Keys a device registers

    @Test func aKeyOfTheWrongLengthIsRefused() throws {
        let point = try RFC8291.bytes(RFC8291.uaPublic)
        let auth = try RFC8291.bytes(RFC8291.auth)
        #expect(throws: WebPushError.invalidP256DH("must be 65 bytes, got 64")) {
            try WebPushKeys(p256dh: Array(point.dropLast()), auth: auth)
        }
        #expect(throws: WebPushError.invalidP256DH("must be 65 bytes, got 66")) {
            try WebPushKeys(p256dh: point + [0], auth: auth)
        }
        #expect(throws: WebPushError.invalidP256DH("must be 65 bytes, got 0")) {
            try WebPushKeys(p256dh: [], auth: auth)
        }
        // The compressed form of the same point (33 bytes) is not what Web Push sends
        let compressed = [0x02 | (point[64] & 1)] + Array(point[1..<33])
        #expect(throws: WebPushError.invalidP256DH("must be 65 bytes, got 33")) {
            try WebPushKeys(p256dh: compressed, auth: auth)
        }
    }

    @Test func aPointOffTheCurveIsRefused() throws {
        let point = try RFC8291.bytes(RFC8291.uaPublic)
        let auth = try RFC8291.bytes(RFC8291.auth)
        var offCurve = point
        offCurve[64] ^= 1
        #expect(throws: WebPushError.invalidP256DH("not a point on P-256")) {
            try WebPushKeys(p256dh: offCurve, auth: auth)
        }
        let zeros = [0x04] + [UInt8](repeating: 0, count: 64)
        #expect(throws: WebPushError.invalidP256DH("not a point on P-256")) {
            try WebPushKeys(p256dh: zeros, auth: auth)
        }
        // x = p (the field's prime) is out of range even before the curve equation
        let prime: [UInt8] = [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 12) + [UInt8](repeating: 0xff, count: 12)
        #expect(throws: WebPushError.invalidP256DH("not a point on P-256")) {
            try WebPushKeys(p256dh: [0x04] + prime + Array(point[33...]), auth: auth)
        }
        // The hybrid form (0x06/0x07) has 65 bytes too, but is not the uncompressed form
        var hybrid = point
        hybrid[0] = 0x06 | (point[64] & 1)
        #expect(throws: WebPushError.invalidP256DH("must be an uncompressed point (0x04 first)")) {
            try WebPushKeys(p256dh: hybrid, auth: auth)
        }
    }

    @Test(arguments: [0, 15, 17, 32])
    func anAuthSecretOfTheWrongLengthIsRefused(length: Int) throws {
        let point = try RFC8291.bytes(RFC8291.uaPublic)
        #expect(throws: WebPushError.invalidAuth(length: length)) {
            try WebPushKeys(p256dh: point, auth: [UInt8](repeating: 7, count: length))
        }
    }

    @Test func keysThatAreNotBase64URLAreRefusedByField() {
        #expect(throws: WebPushError.invalidBase64URL(field: "p256dh")) {
            try WebPushKeys(p256dh: "not base64url!", auth: RFC8291.auth)
        }
        #expect(throws: WebPushError.invalidBase64URL(field: "auth")) {
            try WebPushKeys(p256dh: RFC8291.uaPublic, auth: "@@@@")
        }
        #expect(throws: WebPushError.invalidAuth(length: 15)) {
            try WebPushKeys(p256dh: RFC8291.uaPublic, auth: String(RFC8291.auth.dropLast(2)))
        }
    }

    @Test func aPrivateScalarOutOfRangeIsRefused() {
        #expect(throws: WebPushError.invalidPrivateKey) { try P256KeyAgreementKey(privateScalar: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: WebPushError.invalidPrivateKey) { try P256KeyAgreementKey(privateScalar: [UInt8](repeating: 0xff, count: 32)) }
        #expect(throws: WebPushError.invalidPrivateKey) { try P256KeyAgreementKey(privateScalar: [1]) }
        // The sender side's scalar too (zero, at least the group order, not 32 bytes).
        let keys = try? WebPushKeys(p256dh: RFC8291.uaPublic, auth: RFC8291.auth)
        for scalar in [[UInt8](repeating: 0, count: 32), [UInt8](repeating: 0xff, count: 32), [1]] {
            #expect(throws: WebPushError.invalidPrivateKey) {
                try WebPushEncryption.encrypt(
                    [1, 2, 3], for: #require(keys), ephemeralScalar: scalar, salt: [UInt8](repeating: 7, count: 16))
            }
        }
    }

    // MARK: Messages a device cannot open

    @Test func aTruncatedMessageIsRefused() throws {
        let device = try Device()
        let message = try WebPushEncryption.encrypt(Array("hello".utf8), for: device.keys)
        for length in [0, 20, 85] {
            #expect(throws: WebPushError.malformedMessage("shorter than the 86-byte header")) {
                try WebPushEncryption.decrypt(Array(message.prefix(length)), with: device.key, auth: device.auth)
            }
        }
        #expect(throws: WebPushError.malformedMessage("ciphertext shorter than a delimiter and a tag")) {
            try WebPushEncryption.decrypt(Array(message.prefix(86 + 16)), with: device.key, auth: device.auth)
        }
        // Cut inside the ciphertext or the tag: the tag no longer verifies
        #expect(throws: WebPushError.authenticationFailed) {
            try WebPushEncryption.decrypt(Array(message.dropLast()), with: device.key, auth: device.auth)
        }
    }

    @Test func aGarbledMessageIsRefused() throws {
        let device = try Device()
        let message = try WebPushEncryption.encrypt(Array("hello, private push".utf8), for: device.keys)
        // Any altered byte of the salt, the ciphertext or the tag fails authentication
        for index in [0, 15, 86, 90, message.count - 17, message.count - 1] {
            var altered = message
            altered[index] ^= 0x80
            #expect(throws: WebPushError.authenticationFailed, "byte \(index)") {
                try WebPushEncryption.decrypt(altered, with: device.key, auth: device.auth)
            }
        }
        // A key id that is not a point on the curve
        var badKeyID = message
        badKeyID[85] ^= 1
        #expect(throws: WebPushError.invalidP256DH("not a point on P-256")) {
            try WebPushEncryption.decrypt(badKeyID, with: device.key, auth: device.auth)
        }
        // A key id of another length
        var badIDLength = message
        badIDLength[20] = 64
        #expect(throws: WebPushError.malformedMessage("keyid must be 65 bytes, got 64")) {
            try WebPushEncryption.decrypt(badIDLength, with: device.key, auth: device.auth)
        }
        // A record size too small to hold the record, or below RFC 8188's minimum
        var smallRecord = message
        smallRecord[16..<20] = [0, 0, 0, 20]
        #expect(throws: WebPushError.malformedMessage("more than one record (36 bytes, record size 20)")) {
            try WebPushEncryption.decrypt(smallRecord, with: device.key, auth: device.auth)
        }
        smallRecord[16..<20] = [0, 0, 0, 17]
        #expect(throws: WebPushError.malformedMessage("record size 17 is below 18")) {
            try WebPushEncryption.decrypt(smallRecord, with: device.key, auth: device.auth)
        }
    }

    @Test func aWrongTagIsRefused() throws {
        let device = try Device()
        var message = try WebPushEncryption.encrypt(Array("ring ring".utf8), for: device.keys)
        message.replaceSubrange((message.count - 16)..., with: [UInt8](repeating: 0, count: 16))
        #expect(throws: WebPushError.authenticationFailed) {
            try WebPushEncryption.decrypt(message, with: device.key, auth: device.auth)
        }
    }

    @Test func anotherDevicesKeyOrSecretCannotOpenIt() throws {
        let device = try Device()
        let other = try Device()
        let message = try WebPushEncryption.encrypt(Array("for one device only".utf8), for: device.keys)
        #expect(throws: WebPushError.authenticationFailed) {
            try WebPushEncryption.decrypt(message, with: other.key, auth: device.auth)
        }
        #expect(throws: WebPushError.authenticationFailed) {
            try WebPushEncryption.decrypt(message, with: device.key, auth: other.auth)
        }
        #expect(throws: WebPushError.authenticationFailed) {
            try WebPushEncryption.decrypt(message, with: other.key, auth: other.auth)
        }
        #expect(throws: WebPushError.invalidAuth(length: 8)) {
            try WebPushEncryption.decrypt(message, with: device.key, auth: Array(device.auth.prefix(8)))
        }
    }

    @Test func manyMessagesAtOnceAllOpen() async throws {
        // One device key, many concurrent encryptions and decryptions (the sender pool does this)
        let device = try Device()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let plaintext = Array("message \(index)".utf8)
                    let message = try WebPushEncryption.encrypt(plaintext, for: device.keys)
                    return try WebPushEncryption.decrypt(message, with: device.key, auth: device.auth) == plaintext
                }
            }
            for try await opened in group { #expect(opened) }
        }
    }
}

/// A device's side: its key pair, its auth secret, and the keys it registers.
private struct Device: Sendable {
    let key: P256KeyAgreementKey
    let auth: [UInt8]
    let keys: WebPushKeys

    init() throws {
        key = try P256KeyAgreementKey()
        auth = Array(Crypto.randomBytes(16))
        keys = try WebPushKeys(p256dh: key.publicKey, auth: auth)
    }
}
