import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The service's side of private push (issue 28), for tests: Web Push message encryption
/// (RFC 8291 §3, one RFC 8188 `aes128gcm` record, key id = the ephemeral public key) of a
/// standard payload for one device's registered keys, and the private payloads the service
/// sends around it. Built on the platform's ``PNPushCrypto`` (OpenSSL on Linux).
public enum SimulatedPrivatePush {
    /// A device's registered keys (`"encryption": {"p256dh", "auth"}`), base64url.
    public struct Keys: Sendable, Equatable {
        /// The device's public key: base64url of its 65-byte uncompressed point.
        public var p256dh: String
        /// The device's auth secret: base64url of 16 bytes.
        public var auth: String

        /// Creates keys from their registration form.
        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    /// Why a message could not be made.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// The record size the service writes (RFC 8291's example).
    public static let recordSize = 4_096

    /// The `aes128gcm` message of `plaintext` for `keys`, with a fresh ephemeral key and salt
    /// (or the given ones: RFC 8291 Appendix A's, for the test vector).
    public static func encrypt(
        _ plaintext: [UInt8], for keys: Keys, crypto: PNPushCrypto = PNPlatform.systemPushCrypto,
        ephemeralKey: PNP256KeyPair? = nil, salt: [UInt8]? = nil
    ) throws -> [UInt8] {
        guard let device = PNBase64URL.decode(keys.p256dh), let auth = PNBase64URL.decode(keys.auth) else {
            throw Failure(description: "the keys are not base64url")
        }
        let sender = try ephemeralKey ?? crypto.generateP256KeyPair()
        let salt = try salt ?? crypto.randomBytes(count: 16)
        let shared = try crypto.sharedSecret(sender, peerPublicKey: device)
        let ikm = try crypto.hkdfSHA256(
            inputKeyMaterial: shared, salt: auth, info: Array("WebPush: info".utf8) + [0] + device + sender.publicKey,
            outputByteCount: 32)
        let key = try crypto.hkdfSHA256(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = try crypto.hkdfSHA256(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let sealed = try crypto.sealAES128GCM(key: key, nonce: nonce, plaintext: plaintext + [2])
        let size = UInt32(recordSize)
        return salt + [UInt8(size >> 24), UInt8(size >> 16 & 0xff), UInt8(size >> 8 & 0xff), UInt8(size & 0xff)]
            + [UInt8(sender.publicKey.count)] + sender.publicKey + sealed
    }

    /// `enc` for a standard payload: base64url of its encrypted JSON.
    public static func enc(
        _ standard: [String: Any], for keys: Keys, crypto: PNPushCrypto = PNPlatform.systemPushCrypto
    ) throws
        -> String
    {
        let json = try JSONSerialization.data(withJSONObject: standard, options: [.sortedKeys])
        return PNBase64URL.encode(try encrypt([UInt8](json), for: keys, crypto: crypto))
    }

    /// The private alert push the service sends for `standard`: a placeholder `loc-key`,
    /// `mutable-content: 1`, the standard payload's `sound`, `badge` and `category`, an opaque
    /// `thread-id`, the push id, and `enc`. `keys: nil` plays a token registered without a key:
    /// the placeholder only.
    public static func alert(
        _ standard: [String: Any], for keys: Keys?, placeholder: String = "New message", pushId: String = "push-1",
        crypto: PNPushCrypto = PNPlatform.systemPushCrypto
    ) throws -> [String: Any] {
        let clear = standard["aps"] as? [String: Any] ?? [:]
        var aps: [String: Any] = ["alert": ["loc-key": placeholder], "mutable-content": 1, "thread-id": "thr-opaque"]
        for key in ["sound", "badge", "category"] { aps[key] = clear[key] }
        var payload: [String: Any] = ["aps": aps, "pushId": pushId]
        if let keys { payload["enc"] = try enc(standard, for: keys, crypto: crypto) }
        return payload
    }

    /// The private background push (a read, an edit, a deletion) for `standard`.
    public static func background(
        _ standard: [String: Any], for keys: Keys, pushId: String = "push-1", crypto: PNPushCrypto = PNPlatform.systemPushCrypto
    ) throws -> [String: Any] {
        ["aps": ["content-available": 1], "pushId": pushId, "enc": try enc(standard, for: keys, crypto: crypto)]
    }

    /// The private VoIP push for `standard`; `keys: nil` plays a VoIP token registered without
    /// a key: only `type`, `callAction`, `sessionId` and the push id in clear.
    public static func voip(
        _ standard: [String: Any], for keys: Keys?, pushId: String = "push-1", crypto: PNPushCrypto = PNPlatform.systemPushCrypto
    ) throws -> [String: Any] {
        guard let keys else {
            var payload: [String: Any] = ["aps": [String: Any](), "type": "call", "pushId": pushId]
            for key in ["callAction", "sessionId"] { payload[key] = standard[key] }
            return payload
        }
        return ["aps": [String: Any](), "pushId": pushId, "enc": try enc(standard, for: keys, crypto: crypto)]
    }
}

extension SimulatedPushService {
    /// The private push keys the device registered last with `token` (`nil`: none, or the
    /// registration had no `encryption`).
    public func encryptionKeys(token: String) -> SimulatedPrivatePush.Keys? {
        requests(.registerToken).last { $0.json["fcmToken"] == token }?.encryption
    }
}
