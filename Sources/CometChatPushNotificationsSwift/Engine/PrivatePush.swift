import Foundation

/// What became of a push that may be private (issue 28).
@_spi(PNProducts)
public enum PNPrivatePushResult {
    /// No `enc`: a standard push, to handle as it is.
    case standard
    /// `enc` decrypted: the standard payload inside, to handle exactly as a standard push's
    /// `userInfo`.
    case opened([AnyHashable: Any])
    /// `enc` could not be decrypted: the placeholder stays.
    case failed(PNPrivatePushFailure)

    /// The payload to handle: the decrypted one, else `original` (a standard push, or a
    /// placeholder that could not be opened).
    public func payload(or original: [AnyHashable: Any]) -> [AnyHashable: Any] {
        if case .opened(let payload) = self { return payload }
        return original
    }
}

/// Opens private pushes: `enc` (base64url of one RFC 8188 record, RFC 8291 Web Push encryption)
/// with the current key, then the previous one while its day lasts.
struct PrivatePushOpener: Sendable {
    let keys: PrivatePushKeyStore
    let decryptor: WebPushDecryptor

    init(secure: PNSecureStore, crypto: PNPushCrypto, clock: PNClock) {
        keys = PrivatePushKeyStore(secure: secure, crypto: crypto, clock: clock)
        decryptor = WebPushDecryptor(crypto: crypto)
    }

    /// The key that carries the encrypted payload.
    static let encKey = "enc"

    /// Whether `payload` is a private push (it carries `enc`).
    static func isPrivate(_ payload: [AnyHashable: Any]) -> Bool { payload[encKey] != nil }

    func open(_ payload: [AnyHashable: Any]) -> PNPrivatePushResult {
        guard let enc = payload[Self.encKey] else { return .standard }
        guard let text = enc as? String, let message = PNBase64URL.decode(text) else { return .failed(.notBase64URL) }
        guard let ring = keys.load() else { return .failed(.noKey) }
        var failure = PNPrivatePushFailure.authenticationFailed
        for entry in PrivatePushKeyStore.candidates(ring, now: keys.clock.now()) {
            guard let pair = entry.keyPair, let auth = PNBase64URL.decode(entry.auth) else {
                failure = .unusableKey
                continue
            }
            let plaintext: [UInt8]
            do {
                plaintext = try decryptor.decrypt(message, keyPair: pair, auth: auth)
            } catch {
                switch error as? PNPrivatePushFailure ?? .cryptoFailure("\(type(of: error))") {
                case .authenticationFailed:
                    // Another key may open it: the tag tells, cheaply.
                    continue
                case .unusableKey:
                    failure = .unusableKey
                    continue
                case let other:
                    return .failed(other)
                }
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any] else {
                return .failed(.notJSON)
            }
            var opened: [AnyHashable: Any] = [:]
            opened.reserveCapacity(object.count + 1)
            for (key, value) in object { opened[key] = value }
            // What the clear part adds (the push id), where the encrypted payload lacks it.
            for (key, value) in payload where key != AnyHashable(Self.encKey) && opened[key] == nil { opened[key] = value }
            return .opened(opened)
        }
        return .failed(failure)
    }
}

/// What the app and its extension noticed about private pushes, for `getDiagnostics()` and
/// `ensureRingReady`: no secret, no payload text. Kept in the App Group's defaults when there is
/// one, so the app sees what the extension saw.
struct PrivatePushStatus: Codable, Equatable, Sendable {
    /// The last failure: its code, sentence, time and process (`app` or `extension`).
    var lastFailureCode: String?
    var lastFailure: String?
    var lastFailureAt: Date?
    var lastFailureIn: String?
    /// The last private push opened in the app, and in the extension.
    var lastOpenedInAppAt: Date?
    var lastOpenedInExtensionAt: Date?
    /// Private alerts that reached the app still encrypted (no extension replaced them), and
    /// when the last did.
    var alertsWithoutExtension = 0
    var lastAlertWithoutExtensionAt: Date?

    static let storeKey = "com.cometchat.push.private-push.status"

    static func read(_ store: PNKeyValueStore) -> PrivatePushStatus {
        guard let data = store.data(forKey: storeKey), let status = try? JSONDecoder().decode(Self.self, from: data) else {
            return PrivatePushStatus()
        }
        return status
    }

    static func update(_ store: PNKeyValueStore, _ change: (inout PrivatePushStatus) -> Void) {
        var status = read(store)
        change(&status)
        store.set(try? JSONEncoder().encode(status), forKey: storeKey)
    }

    /// Private alerts reach the app as placeholders and no extension has ever opened one.
    var placeholdersOnly: Bool { alertsWithoutExtension > 0 && lastOpenedInExtensionAt == nil }
}
