import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// RFC 8291 Appendix A: the example's keys, salt, plaintext and encrypted message (public test
/// data of the RFC).
enum RFC8291Vector {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let senderPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let receiverPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let message =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A"
        + "_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func bytes(_ text: String) throws -> [UInt8] { try #require(PNBase64URL.decode(text)) }
    static var receiver: PNP256KeyPair {
        get throws { PNP256KeyPair(privateKey: try bytes(receiverPrivate), publicKey: try bytes(receiverPublic)) }
    }
    static var sender: PNP256KeyPair {
        get throws { PNP256KeyPair(privateKey: try bytes(senderPrivate), publicKey: try bytes(senderPublic)) }
    }
}

/// A self-hosted configuration (private push needs a `clientHost`).
func privateConfig(extensionGroupID: String? = "group.app1", clientHost: String? = "https://push.example.com") -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: "apns-provider", extensionGroupID: extensionGroupID, enableBadgeCount: true,
        clientHost: clientHost)
}

@Suite("Private push: the decryptor")
struct PrivatePushDecryptorTests {
    let crypto = PNPlatform.systemPushCrypto

    @Test("RFC 8291 Appendix A: the RFC's message opens to its plaintext with the receiver's key and auth secret")
    func rfcVectorDecrypts() throws {
        #if os(Linux)
        #expect(crypto is OpenSSLPushCrypto, "the Linux path is OpenSSL")
        #endif
        let plaintext = try WebPushDecryptor(crypto: crypto).decrypt(
            RFC8291Vector.bytes(RFC8291Vector.message), keyPair: RFC8291Vector.receiver, auth: RFC8291Vector.bytes(RFC8291Vector.auth))
        #expect(String(decoding: plaintext, as: UTF8.self) == RFC8291Vector.plaintext)
    }

    @Test("RFC 8291 Appendix A: the simulated service's encryptor gives the RFC's exact message")
    func rfcVectorEncrypts() throws {
        let message = try SimulatedPrivatePush.encrypt(
            Array(RFC8291Vector.plaintext.utf8),
            for: .init(p256dh: RFC8291Vector.receiverPublic, auth: RFC8291Vector.auth), crypto: crypto,
            ephemeralKey: RFC8291Vector.sender, salt: RFC8291Vector.bytes(RFC8291Vector.salt))
        #expect(PNBase64URL.encode(message) == RFC8291Vector.message)
    }

    /// RFC 5869 Appendix A's SHA-256 cases: IKM, salt, info (hex) and the expected OKM.
    static let hkdfCases: [(ikm: String, salt: String, info: String, okm: String)] = [
        (
            String(repeating: "0b", count: 22), "000102030405060708090a0b0c", "f0f1f2f3f4f5f6f7f8f9",
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        ),
        (
            hexRange(0x00, 0x50), hexRange(0x60, 0xb0), hexRange(0xb0, 0x100),
            "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"
        ),
        (
            String(repeating: "0b", count: 22), "", "",
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        ),
    ]

    static func hexRange(_ from: Int, _ to: Int) -> String { PNHex.string((from..<to).map { UInt8($0) }) }

    static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test("HKDF-SHA-256 gives RFC 5869's test cases 1 to 3 (several blocks, long inputs, no salt and no info)", arguments: 0..<3)
    func hkdfVectors(_ index: Int) throws {
        let vector = Self.hkdfCases[index]
        let okm = Self.hexBytes(vector.okm)
        let derived = try crypto.hkdfSHA256(
            inputKeyMaterial: Self.hexBytes(vector.ikm), salt: Self.hexBytes(vector.salt), info: Self.hexBytes(vector.info),
            outputByteCount: okm.count)
        #expect(derived == okm)
        // A shorter output is the same key's prefix.
        #expect(
            try crypto.hkdfSHA256(
                inputKeyMaterial: Self.hexBytes(vector.ikm), salt: Self.hexBytes(vector.salt), info: Self.hexBytes(vector.info),
                outputByteCount: 16) == Array(okm.prefix(16)))
    }

    @Test("ECDH agrees both ways, and a point off the curve is refused as the sender's key")
    func ecdhAgreesBothWays() throws {
        let (one, two) = (try crypto.generateP256KeyPair(), try crypto.generateP256KeyPair())
        let secret = try crypto.sharedSecret(one, peerPublicKey: two.publicKey)
        #expect(secret.count == 32)
        #expect(try crypto.sharedSecret(two, peerPublicKey: one.publicKey) == secret)
        #expect(try crypto.sharedSecret(one, peerPublicKey: one.publicKey) != secret)
        var offCurve = two.publicKey
        offCurve[64] ^= 1
        #expect(throws: PNPushCryptoError.invalidPublicKey) { _ = try crypto.sharedSecret(one, peerPublicKey: offCurve) }
    }

    @Test("Base64url: no padding, the URL alphabet, and nothing else accepted")
    func base64url() {
        #expect(PNBase64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(PNBase64URL.decode("-_8") == [0xfb, 0xff])
        #expect(PNBase64URL.decode("-_8=") == [0xfb, 0xff])
        #expect(PNBase64URL.decode("+/8") == nil)
        #expect(PNBase64URL.decode("a b") == nil)
        #expect(PNBase64URL.decode("abcde") == nil)
        // Bits left over must be zero: "-_9" would be the same bytes, so it is not base64url.
        #expect(PNBase64URL.decode("-_9") == nil)
        #expect(PNBase64URL.decode("") == [])
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(PNBase64URL.decode(PNBase64URL.encode(bytes)) == bytes, "length \(length)")
        }
    }

    /// A message of the RFC altered one way, and the failure it must give.
    static let badMessages: [(name: String, change: @Sendable ([UInt8]) -> [UInt8], code: String)] = [
        ("truncated inside the header", { Array($0.prefix(40)) }, "malformed"),
        ("truncated after the header", { Array($0.prefix(90)) }, "malformed"),
        (
            "a key id that is not 65 bytes",
            {
                var m = $0; m[20] = 64; return m
            }, "malformed"
        ),
        (
            "a sender key that is not a point",
            {
                var m = $0; m[60] ^= 0x01; return m
            }, "invalidSenderKey"
        ),
        (
            "a wrong tag",
            {
                var m = $0; m[m.count - 1] ^= 0x01; return m
            }, "authenticationFailed"
        ),
        (
            "a changed ciphertext",
            {
                var m = $0; m[90] ^= 0x80; return m
            }, "authenticationFailed"
        ),
    ]

    @Test("Bad messages fail with the reason named, never a crash", arguments: 0..<6)
    func badMessage(_ index: Int) throws {
        let bad = Self.badMessages[index]
        let message = bad.change(try RFC8291Vector.bytes(RFC8291Vector.message))
        let (keyPair, auth) = (try RFC8291Vector.receiver, try RFC8291Vector.bytes(RFC8291Vector.auth))
        do {
            _ = try WebPushDecryptor(crypto: crypto).decrypt(message, keyPair: keyPair, auth: auth)
            Issue.record("\(bad.name) decrypted")
        } catch {
            #expect((error as? PNPrivatePushFailure)?.code == bad.code, "\(bad.name): \(error)")
        }
    }

    @Test("Another device's key fails on the tag")
    func anotherDevicesKey() throws {
        let other = try crypto.generateP256KeyPair()
        #expect(throws: PNPrivatePushFailure.authenticationFailed) {
            _ = try WebPushDecryptor(crypto: crypto).decrypt(
                RFC8291Vector.bytes(RFC8291Vector.message), keyPair: other, auth: RFC8291Vector.bytes(RFC8291Vector.auth))
        }
    }

    @Test("A device key that is not a P-256 key pair is unusable, not a crash")
    func unusableDeviceKey() throws {
        let broken = PNP256KeyPair(
            privateKey: [UInt8](repeating: 0xff, count: 32), publicKey: try RFC8291Vector.bytes(RFC8291Vector.receiverPublic))
        #expect(throws: PNPrivatePushFailure.unusableKey) {
            _ = try WebPushDecryptor(crypto: crypto).decrypt(
                RFC8291Vector.bytes(RFC8291Vector.message), keyPair: broken, auth: RFC8291Vector.bytes(RFC8291Vector.auth))
        }
    }

    @Test("A key pair's description shows a fingerprint of the public key, never the private key")
    func keyPairDescription() throws {
        let pair = try RFC8291Vector.receiver
        #expect(!pair.description.contains(RFC8291Vector.receiverPrivate))
        #expect(!"\(pair)".contains(String(describing: pair.privateKey)))
    }
}

@Suite("Private push: keys, registration and the app's handling")
struct PrivatePushTests {
    let device = SimulatedDevice()
    let delegate = RecordingDelegate()
    var token1: String { SimulatedDevice.token(1).hex }

    /// Launches a self-hosted app, logs in and waits for the registration.
    @discardableResult
    func launchLoggedIn(_ config: PNConfiguration = privateConfig()) async -> SimulatedApp {
        let app = await device.launchAndSettle(config, delegate: delegate)
        device.logInToChatSDK(uid: "bob", authToken: "bob-token")
        #expect(await device.settle())
        return app
    }

    func keys() throws -> SimulatedPrivatePush.Keys { try #require(device.service.encryptionKeys(token: token1)) }

    func standardChat() throws -> [String: Any] { try contractPayload("chat-user") }

    @Test("The registration carries encryption only with a clientHost; the key is in the keychain, after first unlock, in the App Group")
    func registrationAndKeychain() async throws {
        await launchLoggedIn()
        let keys = try keys()
        #expect(try RFC8291Vector.bytes(keys.p256dh).count == 65 && RFC8291Vector.bytes(keys.p256dh).first == 0x04)
        #expect(try RFC8291Vector.bytes(keys.auth).count == 16)
        #expect(!keys.p256dh.contains("=") && !keys.auth.contains("="))
        #expect(device.service.contractViolations == [])
        let item = try #require(device.keychain.item(accessGroup: "group.app1", key: PrivatePushKeyStore.itemKey))
        #expect(item.accessibility == .afterFirstUnlockThisDeviceOnly)
        #expect(item.value.contains(keys.p256dh))
        #expect(device.keychain.item(accessGroup: SimulatedKeychain.appGroup, key: PrivatePushKeyStore.itemKey) == nil)
        // The private key never reaches plain storage, the log or the diagnostics.
        let ring = try JSONDecoder().decode(PrivatePushKeyRing.self, from: Data(item.value.utf8))
        #expect(!device.defaults.contains(ring.current.privateKey) && !device.defaults.contains(ring.current.auth))
        #expect(!device.logger.all.contains { $0.contains(ring.current.privateKey) || $0.contains(ring.current.auth) })
        let diagnostics = "\(device.app?.sdk.getDiagnostics() ?? [:])"
        #expect(!diagnostics.contains(ring.current.privateKey) && !diagnostics.contains(ring.current.auth))
        #expect((device.app?.sdk.getDiagnostics()["privatePush"] as? [String: Any])?["keyPresent"] as? Bool == true)
    }

    @Test("Against the hosted API (no clientHost) no key is made and no encryption is sent")
    func hostedSendsNoEncryption() async throws {
        await launchLoggedIn(privateConfig(clientHost: nil))
        #expect(device.service.requests(.registerToken).count == 1)
        #expect(device.service.requests(.registerToken).allSatisfy { $0.encryption == nil })
        #expect(device.keychain.item(accessGroup: "group.app1", key: PrivatePushKeyStore.itemKey) == nil)
    }

    @Test("The key is made once per installation: a relaunch registers the same key")
    func keyMadeOnce() async throws {
        await launchLoggedIn()
        let first = try keys()
        await device.launchAndSettle(privateConfig(), delegate: delegate)
        _ = try? await device.app?.sdk.verifyPushSetup()
        #expect(await device.settle())
        #expect(device.service.requests(.registerToken).count >= 2)
        #expect(try keys() == first)
    }

    @Test("Before the first unlock the keychain gives no key: no key is made over it, and a push stays a placeholder")
    func beforeFirstUnlock() async throws {
        let app = await launchLoggedIn()
        let keys = try keys()
        let item = device.keychain.item(accessGroup: "group.app1", key: PrivatePushKeyStore.itemKey)
        device.keychain.restartDevice()
        let push = try SimulatedPrivatePush.background(try contractPayload("read"), for: keys)
        #expect(device.deliverBackground(push).outcome == .delivered)
        #expect(await device.settle())
        let failure = (app.sdk.getDiagnostics()["privatePush"] as? [String: Any])?["lastDecryptionFailure"] as? [String: String]
        #expect(failure?["code"] == "noKey")
        _ = try? await app.sdk.verifyPushSetup()
        #expect(await device.settle())
        #expect(device.keychain.item(accessGroup: "group.app1", key: PrivatePushKeyStore.itemKey) == item)
        device.keychain.unlock()
    }

    @Test("Before the first unlock no token is registered without its key (the service would forget it); after the unlock the same key is")
    func noRegistrationWithoutTheKeyWhileLocked() async throws {
        let app = await launchLoggedIn()
        let first = try keys()
        let before = device.service.requests(.registerToken).count
        device.keychain.restartDevice()
        _ = try? await app.sdk.verifyPushSetup()
        #expect(await device.settle())
        let whileLocked = device.service.requests(.registerToken).dropFirst(before)
        #expect(whileLocked.allSatisfy { $0.encryption != nil }, "a registration without its key while locked")
        #expect(try keys() == first)
        device.keychain.unlock()
        _ = try await app.sdk.verifyPushSetup()
        #expect(await device.settle())
        #expect(device.service.requests(.registerToken).count > before)
        #expect(device.service.requests(.registerToken).dropFirst(before).allSatisfy { $0.encryption != nil })
        #expect(try keys() == first)
    }

    @Test("A private read push is decrypted and handled as the standard one: its conversation's notifications go")
    func privateReadPush() async throws {
        let app = await launchLoggedIn()
        device.app?.sendToBackground()
        device.deliver(try standardChat())
        #expect(device.notificationCenter.shown.count == 1)
        let push = try SimulatedPrivatePush.background(try contractPayload("read"), for: try keys())
        let delivered = device.deliverBackground(push)
        #expect(await device.settle())
        #expect(delivered.result == .newData)
        #expect(device.notificationCenter.shown.isEmpty)
        #expect(app.badgeHistory.last == 2)
    }

    @Test("In the foreground a private push is decided on its payload: the open conversation hides it; a tap routes the decrypted chat")
    func foregroundAndTap() async throws {
        let app = await launchLoggedIn()
        app.sdk.setActiveConversation(userId: "alice")
        let push = try SimulatedPrivatePush.alert(try standardChat(), for: try keys())
        let hidden = device.deliver(push)
        #expect(await device.settle())
        #expect(hidden.foregroundOptions == [])
        app.sdk.clearActiveConversation()
        device.app?.sendToBackground()
        let shown = device.deliver(push)
        #expect(device.notificationCenter.shown.last?.body == "New message")
        device.tap(shown.notification)
        #expect(await device.settle())
        #expect(delegate.tappedInfos.last?.senderUid == "alice")
        #expect(delegate.tappedInfos.last?.kind == .chat)
        // No extension replaced these alerts: the diagnostics and ensureRingReady say so.
        let privatePush = try #require(app.sdk.getDiagnostics()["privatePush"] as? [String: Any])
        #expect(privatePush["warning"] != nil)
        #expect((try? await app.sdk.ensureRingReady()) == .privatePushWithoutExtension)
    }

    @Test("A standard app never warns about private push")
    func standardNeverWarns() async throws {
        let app = await launchLoggedIn()
        device.app?.sendToBackground()
        device.tap(device.deliver(try standardChat()).notification)
        #expect(await device.settle())
        #expect((app.sdk.getDiagnostics()["privatePush"] as? [String: Any])?["warning"] == nil)
        #expect((try? await app.sdk.ensureRingReady()) == .ready)
    }

    @Test("Bad pushes show the placeholder, crash nothing, and the diagnostics name the reason", arguments: 0..<4)
    func badPushes(_ index: Int) async throws {
        let app = await launchLoggedIn()
        let keys = try keys()
        let good = try SimulatedPrivatePush.alert(try standardChat(), for: keys)
        let enc = try #require(good["enc"] as? String)
        let message = try RFC8291Vector.bytes(enc)
        let other = try SimulatedPrivatePush.alert(
            try standardChat(),
            for: .init(
                p256dh: PNBase64URL.encode(try PNPlatform.systemPushCrypto.generateP256KeyPair().publicKey), auth: keys.auth))
        let cases: [(String, String)] = [
            (PNBase64URL.encode(Array(message.prefix(message.count - 20))), "authenticationFailed"),
            (PNBase64URL.encode(Array(message.prefix(50))), "malformed"),
            (try #require(other["enc"] as? String), "authenticationFailed"),
            ("not base64url!", "notBase64URL"),
        ]
        var push = good
        push["enc"] = cases[index].0
        device.app?.sendToBackground()
        let delivery = device.deliver(push)
        device.tap(delivery.notification)
        #expect(await device.settle())
        #expect(device.kills == [])
        #expect(delegate.tappedInfos.last?.kind == .other)
        #expect(delegate.tappedInfos.last?.senderName == nil)
        let failure = (app.sdk.getDiagnostics()["privatePush"] as? [String: Any])?["lastDecryptionFailure"] as? [String: String]
        #expect(failure?["code"] == cases[index].1)
        #expect(failure?["in"] == "app")
    }

    @Test("Rotation: a new APNs token rotates the key; a push to the previous key opens within a day and not after")
    func rotation() async throws {
        let app = await launchLoggedIn()
        let old = try keys()
        let standard = try contractPayload("read")
        device.rotateAPNsToken(to: SimulatedDevice.token(7))
        #expect(await device.settle())
        let new = try #require(device.service.encryptionKeys(token: SimulatedDevice.token(7).hex))
        #expect(new != old)
        let toOld = try SimulatedPrivatePush.background(standard, for: old)
        let toNew = try SimulatedPrivatePush.background(standard, for: new)
        #expect(app.sdk.openPrivatePush(toNew.anyHashable, appGroupID: "group.app1", process: "app").isOpened)
        device.clock.advance(by: 23 * 3600)
        #expect(app.sdk.openPrivatePush(toOld.anyHashable, appGroupID: "group.app1", process: "app").isOpened)
        device.clock.advance(by: 3600)
        #expect(!app.sdk.openPrivatePush(toOld.anyHashable, appGroupID: "group.app1", process: "app").isOpened)
        #expect(app.sdk.openPrivatePush(toNew.anyHashable, appGroupID: "group.app1", process: "app").isOpened)
    }

    @Test("Rotation registers every token again with the new key")
    func rotationReregistersVoIPAndFCM() async throws {
        let app = await launchLoggedIn()
        app.sdk.registerFCMToken("fcm-token-1")
        #expect(await device.settle())
        let before = try #require(device.service.encryptionKeys(token: "fcm-token-1"))
        device.rotateAPNsToken(to: SimulatedDevice.token(9))
        #expect(await device.settle())
        let apns = try #require(device.service.encryptionKeys(token: SimulatedDevice.token(9).hex))
        #expect(device.service.encryptionKeys(token: "fcm-token-1") == apns)
        #expect(apns != before)
    }
}

extension PNPrivatePushResult {
    var isOpened: Bool {
        if case .opened = self { return true }
        return false
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The payload as `userInfo`.
    var anyHashable: [AnyHashable: Any] {
        var out: [AnyHashable: Any] = [:]
        for (key, value) in self { out[key] = value }
        return out
    }
}
