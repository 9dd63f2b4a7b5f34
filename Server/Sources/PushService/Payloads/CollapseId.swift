import APNs
import PushCrypto

/// The `apns-collapse-id` of every push that has one (Contract/WIRE-CONTRACT.md §5), derived in
/// this one place. APNs keeps one push per collapse id for an offline device, and iOS uses it as
/// the notification's identifier: a push sent twice (a resend after a crash or a transport retry)
/// replaces the first instead of showing a second banner. FCM sends it as
/// `apns.headers.apns-collapse-id`.
enum CollapseId {
    /// What a derived collapse id is of: its prefix (a reaction never replaces its message).
    enum Kind: String, CaseIterable {
        /// A chat push of category `message` (of `message.id`).
        case message = "msg"
        /// A chat push of category `reaction` (of `message.id`).
        case reaction = "rct"
        /// A chat push of category `action` (of `message.id`).
        case action = "act"
        /// A campaign push (of `campaign.id`).
        case campaign = "cmp"
        /// The background push of a message's edit (of the message's id).
        case edit = "edt"
        /// The background push of a message's deletion (of the message's id).
        case deletion = "del"
    }

    /// `<kind>-` and the unpadded base64url SHA-256 of `id`: 47 bytes, whatever the id's length
    /// (ids may be 128 characters; APNs takes at most 64 bytes).
    /// With `keyed` (a private app's recipient), the HMAC under the recipient's key instead of the
    /// SHA-256 (`docs/design/private-push.md`): also 47 bytes.
    static func of(_ kind: Kind, id: String, keyed: RecipientIds? = nil) -> String {
        if let keyed { return keyed.collapseId(kind, id: id) }
        return kind.rawValue + "-" + digest(id)
    }

    /// The collapse id of a chat push: `msg-`, `rct-` or `act-` by its category.
    static func chat(id: String, category: ChatEvent.Category, keyed: RecipientIds? = nil) -> String {
        switch category {
        case .message: return of(.message, id: id, keyed: keyed)
        case .reaction: return of(.reaction, id: id, keyed: keyed)
        case .action: return of(.action, id: id, keyed: keyed)
        }
    }

    /// The collapse id of a call's alert pushes: the session id when it fits APNs' 64 bytes, else
    /// `sha256-` and the digest of the session id (50 bytes): the same for every push of the call,
    /// so they still replace one another on the device.
    /// With `keyed` (a private app's recipient): `call-` and the HMAC of the session id (48 bytes).
    static func call(sessionId: String, keyed: RecipientIds? = nil) -> String {
        if let keyed { return keyed.call(sessionId: sessionId) }
        if sessionId.utf8.count <= APNsLimits.maxCollapseIdBytes { return sessionId }
        return "sha256-" + digest(sessionId)
    }

    /// The unpadded base64url SHA-256 of `id` (43 characters).
    private static func digest(_ id: String) -> String {
        Base64URL.encode(Crypto.sha256(id))
    }
}
