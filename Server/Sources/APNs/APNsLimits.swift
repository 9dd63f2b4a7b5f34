/// What APNs accepts in a request's headers and body (Contract/WIRE-CONTRACT.md §5), in one
/// place: ``APNsNotification/localProblem`` checks a push against it just before sending, and
/// the service checks every job against it when it accepts a send, so that a push that could
/// never be delivered is refused at the door (400) instead of failing later.
public enum APNsLimits {
    /// The longest `apns-collapse-id`, in bytes.
    public static let maxCollapseIdBytes = 64
    /// The largest payload of an alert or background push, in bytes.
    public static let maxPayloadBytes = 4_096
    /// The largest payload of a VoIP push, in bytes.
    public static let maxVoIPPayloadBytes = 5_120
    /// The longest bundle id a provider may have, in bytes: with `.voip` appended (the VoIP
    /// topic) it stays within ``maxTopicBytes``.
    public static let maxBundleIdBytes = maxTopicBytes - voipTopicSuffix.utf8.count
    /// The longest `apns-topic` the service sends, in bytes. APNs documents no limit; bundle ids
    /// are far shorter than this (a bound against nonsense, not APNs' number).
    public static let maxTopicBytes = 160
    /// What a VoIP push's topic adds to the bundle id.
    public static let voipTopicSuffix = ".voip"
    /// The `apns-priority` values: 10 (immediate) and 5 (power-saving; the only one for background pushes).
    public static let priorities: Set<Int> = [10, 5]

    /// The largest payload APNs accepts for a push: 5,120 bytes for VoIP, else 4,096.
    public static func payloadLimit(voip: Bool) -> Int {
        voip ? maxVoIPPayloadBytes : maxPayloadBytes
    }

    /// The reason APNs would give for refusing a push with these headers and this many payload
    /// bytes (`PayloadEmpty`, `PayloadTooLarge`, `BadCollapseId`, `BadPriority`), or nil.
    public static func problem(payloadBytes: Int, voip: Bool, background: Bool, priority: Int, collapseId: String?) -> APNsReason? {
        if payloadBytes == 0 { return .payloadEmpty }
        if payloadBytes > payloadLimit(voip: voip) { return .payloadTooLarge }
        if let collapseId, collapseId.utf8.count > maxCollapseIdBytes { return .badCollapseId }
        if !priorities.contains(priority) || background && priority != 5 { return .badPriority }
        return nil
    }

    /// Why `bundleId` cannot be an APNs topic, in words, or nil when it can: 1 to
    /// ``maxBundleIdBytes`` letters, digits, `-` and `.`, in dot-separated parts none of which
    /// is empty (what Apple allows in a bundle id).
    public static func bundleIdProblem(_ bundleId: String) -> String? {
        let bytes = Array(bundleId.utf8)
        guard !bytes.isEmpty else { return "empty" }
        guard bytes.count <= maxBundleIdBytes else { return "longer than \(maxBundleIdBytes) characters" }
        let allowed = bytes.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45 || byte == 46
        }
        guard allowed else { return "only letters, digits, - and . are allowed" }
        guard !bundleId.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            return "a dot at the start or end, or two in a row"
        }
        return nil
    }
}
