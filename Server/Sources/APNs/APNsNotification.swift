import PushCore

/// One push to one device token, with the APNs headers of Contract/WIRE-CONTRACT.md §5.
public struct APNsNotification: Sendable {
    /// The device token, lowercase hex.
    public var deviceToken: String
    /// The app's bundle id; `.voip` is appended for VoIP pushes.
    public var bundleId: String
    /// `apns-push-type`.
    public var pushType: PushType
    /// `apns-priority`: 10 or 5 (`background` always uses 5).
    public var priority: Int
    /// `apns-expiration` in epoch seconds; 0 means deliver now or never.
    public var expiration: Int64
    /// `apns-collapse-id`, at most ``APNsLimits/maxCollapseIdBytes`` bytes.
    public var collapseId: String?
    /// `apns-id`, a UUID APNs echoes back.
    public var apnsId: String?
    /// The JSON payload.
    public var payload: [UInt8]

    /// Creates a notification.
    public init(
        deviceToken: String, bundleId: String, pushType: PushType, priority: Int = 10,
        expiration: Int64 = 0, collapseId: String? = nil, apnsId: String? = nil, payload: [UInt8]
    ) {
        self.deviceToken = deviceToken
        self.bundleId = bundleId
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.apnsId = apnsId
        self.payload = payload
    }

    /// `apns-topic`: the bundle id, plus `.voip` for VoIP pushes.
    public var topic: String {
        let suffix = APNsLimits.voipTopicSuffix
        return pushType == .voip && !bundleId.hasSuffix(suffix) ? bundleId + suffix : bundleId
    }

    /// The largest payload APNs accepts for this push type (``APNsLimits/payloadLimit(voip:)``).
    public var payloadLimit: Int { APNsLimits.payloadLimit(voip: pushType == .voip) }

    /// Why APNs would refuse this notification, checked before sending; nil if it is valid.
    /// The limits are ``APNsLimits``'s, which the service also checks when it accepts a send.
    public var localProblem: APNsReason? {
        if let problem = APNsLimits.problem(
            payloadBytes: payload.count, voip: pushType == .voip, background: pushType == .background, priority: priority,
            collapseId: collapseId)
        {
            return problem
        }
        if deviceToken.isEmpty || !deviceToken.utf8.allSatisfy(\.isHexDigit) { return .badDeviceToken }
        return nil
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (48...57).contains(self) || (97...102).contains(self) || (65...70).contains(self)
    }
}
