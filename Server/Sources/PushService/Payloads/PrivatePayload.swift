#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import APNs
import PushCore
import PushCrypto
import PushStore

/// The key of private pushes' keyed ids (`docs/design/private-push.md`, "Collapse and thread
/// ids"): `K_ids`, HKDF-SHA-256 of the service's sealing key with the info `"push ids"` (never
/// the sealing key itself).
struct PushIdKeys: Sendable {
    /// The HKDF info `K_ids` is derived with.
    static let info = "push ids"
    private let key: Data

    /// `K_ids` of the service whose stored secrets `secrets` seals.
    init(secrets: SecretBox) {
        key = secrets.derivedKey(info: Self.info)
    }

    /// The ids of one recipient: `K_user` = HMAC-SHA-256(`K_ids`, appId ‖ 0 ‖ uid).
    func recipient(appId: String, uid: String) -> RecipientIds {
        var data = Data(appId.utf8)
        data.append(0)
        data.append(contentsOf: uid.utf8)
        return RecipientIds(key: Crypto.hmacSHA256(key: key, data: data))
    }
}

/// One recipient's keyed ids: what a private push sends in clear instead of a hash anyone could
/// recompute from a guessable id (`prefix-` + base64url(HMAC-SHA-256(`K_user`, id))).
struct RecipientIds: Sendable {
    let key: Data

    /// The unpadded base64url HMAC of `id` (43 characters).
    func mac(_ id: String) -> String {
        Base64URL.encode(Crypto.hmacSHA256(key: key, data: Data(id.utf8)))
    }

    /// A collapse id of `kind` over the id standard mode hashes: 47 bytes.
    func collapseId(_ kind: CollapseId.Kind, id: String) -> String {
        kind.rawValue + "-" + mac(id)
    }

    /// A call's collapse id: `call-` and the HMAC of the session id (48 bytes).
    func call(sessionId: String) -> String {
        "call-" + mac(sessionId)
    }

    /// A conversation's `thread-id`: `thr-` and the HMAC of the conversation id (47 bytes).
    func thread(conversationId: String) -> String {
        "thr-" + mac(conversationId)
    }
}

/// What a send needs to build the pushes of a `private` app: its placeholders and the keyed ids.
struct PrivateMode: Sendable {
    let appId: String
    let ids: PushIdKeys
    /// The `loc-key` of a chat or campaign push (the app's, or ``AppPrivacy/defaultPlaceholder``).
    let placeholder: String
    /// The `loc-key` of a call's alert push (the app's, or ``AppPrivacy/defaultCallPlaceholder``).
    let callPlaceholder: String

    /// The private mode of `app`, or nil for a `standard` app (payloads unchanged).
    init?(app: AppRecord?, ids: PushIdKeys) {
        guard let app, app.privacy == .private else { return nil }
        appId = app.id
        self.ids = ids
        placeholder = app.privatePlaceholder ?? AppPrivacy.defaultPlaceholder
        callPlaceholder = app.privateCallPlaceholder ?? AppPrivacy.defaultCallPlaceholder
    }

    /// The keyed ids of `uid`.
    func recipient(_ uid: String) -> RecipientIds {
        ids.recipient(appId: appId, uid: uid)
    }
}

extension ServiceContext {
    /// The private mode of app `appId`, or nil when it is `standard` (or unknown).
    func privateMode(appId: String) throws -> PrivateMode? {
        PrivateMode(app: try store.app(id: appId), ids: pushIds)
    }
}

/// The two parts of a private push (`docs/design/private-push.md`, "A private push", "Size
/// budget"): the clear part (a placeholder `aps` and, per job, `pushId`) and the plaintext the
/// sender seals into `enc` (the standard §4 payload, fitted to APNs' limit).
enum PrivatePayload {
    /// What kind of clear part a push gets.
    enum Shape {
        /// An alert: the placeholder `loc-key`, `mutable-content: 1`, and the standard `aps`'s
        /// `sound`, `badge`, `category`, `thread-id`, `interruption-level` and `relevance-score`.
        case alert(placeholder: String)
        /// A VoIP push: `{"aps": {}}`.
        case voip
        /// A background push (read, edit, deletion): `{"aps": {"content-available": 1}}`, with
        /// the standard `aps`'s `badge` when it has one.
        case background
    }

    /// The `aps` keys an alert keeps in clear: none names anyone (the `thread-id` is keyed).
    private static let clearAPSKeys = ["sound", "badge", "category", "thread-id", "interruption-level", "relevance-score"]

    /// The clear part of a push whose standard payload is `payload` (without `pushId`).
    static func clear(_ payload: [String: Any], shape: Shape) -> [String: Any] {
        switch shape {
        case .voip:
            return ["aps": [String: Any]()]
        case .background:
            // A read push's badge (the service's count, issue 30) names no one: it stays in clear.
            var aps: [String: Any] = ["content-available": 1]
            if let badge = (payload["aps"] as? [String: Any])?["badge"] { aps["badge"] = badge }
            return ["aps": aps]
        case .alert(let placeholder):
            let standard = payload["aps"] as? [String: Any] ?? [:]
            var aps: [String: Any] = ["alert": ["loc-key": placeholder], "mutable-content": 1]
            for key in clearAPSKeys { if let value = standard[key] { aps[key] = value } }
            return ["aps": aps]
        }
    }

    /// A standard payload with its `aps.thread-id` keyed (`thr-` + HMAC of the conversation id);
    /// the plaintext keeps `conversationId` itself, sealed.
    static func keyingThread(_ payload: [String: Any], with keyed: RecipientIds) -> [String: Any] {
        guard var aps = payload["aps"] as? [String: Any], let thread = aps["thread-id"] as? String, !thread.isEmpty else {
            return payload
        }
        var payload = payload
        aps["thread-id"] = keyed.thread(conversationId: thread)
        payload["aps"] = aps
        return payload
    }

    /// The bytes `PayloadBuilder.stamp` adds for a push id of `idLength` characters
    /// (`"pushId":"…",`).
    static func stampBytes(idLength: Int) -> Int { idLength + 12 }

    /// The length of a version-4 UUID, the service's push ids.
    static let pushIdLength = 36

    /// The clear part and the fitted plaintext of a push, both without `pushId` (stamped per
    /// job), with what was removed to fit, for APNs' limit of a VoIP or another push.
    static func build(_ payload: [String: Any], shape: Shape, voip: Bool) -> (clear: Data, plaintext: Data, trimmed: [String]) {
        let clear = JSON.encode(clear(payload, shape: shape))
        let stamp = stampBytes(idLength: pushIdLength)
        let (plaintext, trimmed) = PrivateFit.fit(
            payload, clearBytes: clear.count + stamp, stampBytes: stamp, limit: APNsLimits.payloadLimit(voip: voip))
        return (clear, plaintext, trimmed)
    }
}

/// The size budget of a sealed push: what APNs receives is the clear part with `,"enc":"…"`
/// added, and `enc` of n plaintext bytes is exactly ceil(4 × (n + 103) / 3) characters (one
/// `aes128gcm` record, base64url without padding), so the fit is computed before encrypting.
enum PrivateFit {
    /// The characters of `enc` for a plaintext of `plaintextBytes`.
    static func encLength(plaintextBytes: Int) -> Int {
        (4 * (plaintextBytes + WebPushEncryption.overhead) + 2) / 3
    }

    /// The bytes APNs receives: the clear part (an object with at least one key) plus
    /// `,"enc":"` (8), the `enc` characters and `"` (1).
    static func sealedSize(clearBytes: Int, plaintextBytes: Int) -> Int {
        clearBytes + 9 + encLength(plaintextBytes: plaintextBytes)
    }

    /// The sealed size of a job of a private app, or nil when it has no private push.
    static func sealedSize(of job: PushJob) -> Int? {
        guard let privatePush = job.privatePush else { return nil }
        return sealedSize(clearBytes: job.payload.count, plaintextBytes: privatePush.plaintext.count)
    }

    /// The plaintext of `payload`, made to fit `limit` once sealed beside a clear part of
    /// `clearBytes` (both stamped with `stampBytes` of push id): removes `message`, then
    /// `custom`, then shortens `body` (top level and `aps.alert`) at a character boundary,
    /// ending in "…". Returns the smallest plaintext it could make when even that does not fit
    /// (the send's check at the door then refuses the push, naming its field).
    static func fit(_ payload: [String: Any], clearBytes: Int, stampBytes: Int, limit: Int) -> (plaintext: Data, trimmed: [String]) {
        func fits(_ candidate: Data) -> Bool {
            sealedSize(clearBytes: clearBytes, plaintextBytes: candidate.count + stampBytes) <= limit
        }
        var current = payload
        var encoded = JSON.encode(current)
        var trimmed: [String] = []
        for key in ["message", "custom"] where !fits(encoded) && current[key] != nil {
            current[key] = nil
            encoded = JSON.encode(current)
            trimmed.append(key)
        }
        guard !fits(encoded), let body = current["body"] as? String, !body.isEmpty else { return (encoded, trimmed) }
        // The longest prefix of whole characters (grapheme clusters: an emoji or a letter with its
        // combining marks is never cut) that fits with "…" after it.
        let characters = Array(body)
        func shortened(_ count: Int) -> Data { JSON.encode(withBody(current, String(characters[..<count]) + "…")) }
        var low = 0
        var high = characters.count - 1
        guard high >= 0 else { return (encoded, trimmed) }
        var best = shortened(0)
        guard fits(best) else { return (best, trimmed + ["body"]) }
        while low < high {
            let middle = (low + high + 1) / 2
            let candidate = shortened(middle)
            if fits(candidate) {
                low = middle
                best = candidate
            } else {
                high = middle - 1
            }
        }
        return (best, trimmed + ["body"])
    }

    /// `payload` with its text `body` (top level, and `aps.alert.body` when there is one) set to `text`.
    static func withBody(_ payload: [String: Any], _ text: String) -> [String: Any] {
        var payload = payload
        if payload["body"] != nil { payload["body"] = text }
        if var aps = payload["aps"] as? [String: Any], var alert = aps["alert"] as? [String: Any], alert["body"] != nil {
            alert["body"] = text
            aps["alert"] = alert
            payload["aps"] = aps
        }
        return payload
    }
}
