import Foundation

/// The installation's private push keys, as kept in the keychain: the current P-256 key pair
/// with its 16-byte auth secret, and the previous one for a day after a rotation.
struct PrivatePushKeyRing: Codable, Equatable, Sendable {
    struct Entry: Codable, Equatable, Sendable {
        /// base64url of the 32-byte private scalar.
        var privateKey: String
        /// base64url of the 65-byte uncompressed public point (the registration's `p256dh`).
        var publicKey: String
        /// base64url of the 16-byte auth secret (the registration's `auth`).
        var auth: String
        var createdAt: Date
        /// When it stopped being the current key.
        var retiredAt: Date?

        var keyPair: PNP256KeyPair? {
            guard let secret = PNBase64URL.decode(privateKey), let point = PNBase64URL.decode(publicKey) else { return nil }
            return PNP256KeyPair(privateKey: secret, publicKey: point)
        }

        /// A label of the public key for logs, diagnostics and registration records.
        var fingerprint: String { Fingerprint.of(publicKey) }
    }

    var current: Entry
    var previous: Entry?
    /// A fingerprint of the APNs device token the current key was made for: a different token
    /// means the token rotated, and so does the key.
    var apnsToken: String?
}

/// Reads, creates and rotates the key ring in the secure store (the keychain, in the App
/// Group's access group when there is one, so the Notification Service Extension reads it),
/// readable after the first unlock and on this device only.
struct PrivatePushKeyStore: Sendable {
    let secure: PNSecureStore
    let crypto: PNPushCrypto
    let clock: PNClock

    static let itemKey = "com.cometchat.push.private-push.keys"
    /// How long the previous key still opens pushes after a rotation.
    static let previousKeyLifetime: TimeInterval = 24 * 60 * 60
    static let accessibility = PNKeychainAccessibility.afterFirstUnlockThisDeviceOnly

    /// The stored ring, or `nil` when there is none or the keychain cannot be read now.
    func load() -> PrivatePushKeyRing? {
        guard let text = secure.secret(forKey: Self.itemKey) else { return nil }
        // Decoding is most of the cost of a push after the cryptography: the last ring decoded
        // is kept, keyed by the item's text, so a changed item is decoded again.
        if let (cachedText, ring) = Self.lastDecoded.current, cachedText == text { return ring }
        guard let ring = try? JSONDecoder().decode(PrivatePushKeyRing.self, from: Data(text.utf8)) else { return nil }
        Self.lastDecoded.withLock { $0 = (text, ring) }
        return ring
    }

    /// The last item text decoded, and its ring.
    private static let lastDecoded = PNLocked<(String, PrivatePushKeyRing)?>(nil)

    /// The ring to register with: the stored one, a new one when there is none, or a rotated one
    /// when the APNs token it was made for has changed. Throws when the keychain refuses the
    /// write or the platform cannot make a key.
    func ensure(apnsToken: String?) throws -> PrivatePushKeyRing {
        let fingerprint = apnsToken.map(Fingerprint.of)
        if var ring = load() {
            if ring.apnsToken == nil || fingerprint == nil || ring.apnsToken == fingerprint {
                guard ring.apnsToken == nil, let fingerprint else { return ring }
                ring.apnsToken = fingerprint
                try save(ring)
                return ring
            }
            var retired = ring.current
            retired.retiredAt = clock.now()
            let rotated = PrivatePushKeyRing(current: try makeEntry(), previous: retired, apnsToken: fingerprint)
            try save(rotated)
            return rotated
        }
        let ring = PrivatePushKeyRing(current: try makeEntry(), previous: nil, apnsToken: fingerprint)
        try save(ring)
        return ring
    }

    /// The keys to try on a push, in order: the current one, then the previous one while its
    /// day lasts.
    static func candidates(_ ring: PrivatePushKeyRing, now: Date) -> [PrivatePushKeyRing.Entry] {
        var keys = [ring.current]
        if let previous = ring.previous, let retired = previous.retiredAt,
            now.timeIntervalSince(retired) < previousKeyLifetime
        {
            keys.append(previous)
        }
        return keys
    }

    private func makeEntry() throws -> PrivatePushKeyRing.Entry {
        let pair = try crypto.generateP256KeyPair()
        let auth = try crypto.randomBytes(count: 16)
        return PrivatePushKeyRing.Entry(
            privateKey: PNBase64URL.encode(pair.privateKey), publicKey: PNBase64URL.encode(pair.publicKey),
            auth: PNBase64URL.encode(auth), createdAt: clock.now(), retiredAt: nil)
    }

    private func save(_ ring: PrivatePushKeyRing) throws {
        let data = try JSONEncoder().encode(ring)
        try secure.setSecret(String(decoding: data, as: UTF8.self), forKey: Self.itemKey, accessibility: Self.accessibility)
    }
}
