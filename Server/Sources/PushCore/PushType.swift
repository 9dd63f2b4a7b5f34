/// `apns-push-type`: the kind of push as APNs names it (Contract/WIRE-CONTRACT.md §5). The one
/// definition: a job's headers (``PushHeaders``), the APNs client's notification and FCM's
/// `apns.headers` all use it, and the store keeps its raw value.
public enum PushType: String, Sendable, Codable, Hashable, CaseIterable {
    /// A visible notification.
    case alert
    /// A silent `content-available` push (priority 5 only).
    case background
    /// A PushKit VoIP push (topic `<bundle id>.voip`).
    case voip
}
