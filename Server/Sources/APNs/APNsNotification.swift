/// One push to one device token, with the APNs headers of Contract/WIRE-CONTRACT.md §5.
public struct APNsNotification: Sendable {
    /// `apns-push-type` values this service sends.
    public enum PushType: String, Sendable {
        /// A visible notification.
        case alert
        /// A silent `content-available` push (priority 5 only).
        case background
        /// A PushKit VoIP push (topic `<bundle id>.voip`).
        case voip
    }

    /// The device token, lowercase hex.
    public var deviceToken: String
    /// The app's bundle id; `.voip` is appended for VoIP pushes.
    public var bundleID: String
    /// `apns-push-type`.
    public var pushType: PushType
    /// `apns-priority`: 10 or 5 (`background` always uses 5).
    public var priority: Int
    /// `apns-expiration` in epoch seconds; 0 means deliver now or never.
    public var expiration: Int64
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    /// `apns-id`, a UUID APNs echoes back.
    public var apnsID: String?
    /// The JSON payload.
    public var payload: [UInt8]

    /// Creates a notification.
    public init(
        deviceToken: String, bundleID: String, pushType: PushType, priority: Int = 10,
        expiration: Int64 = 0, collapseID: String? = nil, apnsID: String? = nil, payload: [UInt8]
    ) {
        self.deviceToken = deviceToken
        self.bundleID = bundleID
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }

    /// `apns-topic`: the bundle id, plus `.voip` for VoIP pushes.
    public var topic: String {
        pushType == .voip && !bundleID.hasSuffix(".voip") ? bundleID + ".voip" : bundleID
    }

    /// The largest payload APNs accepts for this push type: 5,120 bytes for VoIP, else 4,096.
    public var payloadLimit: Int { pushType == .voip ? 5120 : 4096 }

    /// Why APNs would refuse this notification, checked before sending; nil if it is valid.
    public var localProblem: String? {
        if payload.isEmpty { return "PayloadEmpty" }
        if payload.count > payloadLimit { return "PayloadTooLarge" }
        if let collapseID, collapseID.utf8.count > 64 { return "BadCollapseId" }
        if deviceToken.isEmpty || !deviceToken.utf8.allSatisfy(\.isHexDigit) { return "BadDeviceToken" }
        if priority != 10 && priority != 5 || pushType == .background && priority != 5 { return "BadPriority" }
        return nil
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (48...57).contains(self) || (97...102).contains(self) || (65...70).contains(self)
    }
}
