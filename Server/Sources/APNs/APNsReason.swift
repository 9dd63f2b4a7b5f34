/// The `reason` of an APNs error answer (Contract/WIRE-CONTRACT.md §5), parsed once from the
/// answer's body and compared as a case everywhere after. The reasons APNs documents are
/// cases; any other text is kept in ``unknown(_:)``. ``rawValue`` is the text as APNs sends
/// it, which is what the service stores, logs and returns.
public enum APNsReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    // 400
    /// The collapse identifier exceeds the maximum size.
    case badCollapseId
    /// The device token is invalid (or of the other environment).
    case badDeviceToken
    /// The `apns-expiration` value is invalid.
    case badExpirationDate
    /// The `apns-id` value is invalid.
    case badMessageId
    /// The `apns-priority` value is invalid.
    case badPriority
    /// The `apns-topic` value is invalid.
    case badTopic
    /// The device token does not match the topic.
    case deviceTokenNotForTopic
    /// A header was repeated.
    case duplicateHeaders
    /// Idle connection timeout.
    case idleTimeout
    /// The `apns-push-type` value is invalid.
    case invalidPushType
    /// The request has no device token.
    case missingDeviceToken
    /// The request has no `apns-topic` and one is required.
    case missingTopic
    /// The message payload is empty.
    case payloadEmpty
    /// Pushing to this topic is not allowed.
    case topicDisallowed
    // 403
    /// The certificate is invalid.
    case badCertificate
    /// The client certificate is for the wrong environment.
    case badCertificateEnvironment
    /// The provider token is stale; a new one must be signed.
    case expiredProviderToken
    /// The action is not allowed.
    case forbidden
    /// The provider token is not valid, or its signature could not be verified.
    case invalidProviderToken
    /// No provider certificate or token was given.
    case missingProviderToken
    /// The key id of the provider token is not the one the connection is bound to.
    case unrelatedKeyIdInToken
    /// The key id of the provider token is for the other environment.
    case badEnvironmentKeyInToken
    // 404, 405
    /// The request path is invalid.
    case badPath
    /// The method is not `POST`.
    case methodNotAllowed
    // 410
    /// The device token has expired.
    case expiredToken
    /// The device token is no longer active for the topic.
    case unregistered
    // 413
    /// The payload is too large.
    case payloadTooLarge
    // 429
    /// The provider token is being updated too often.
    case tooManyProviderTokenUpdates
    /// Too many requests to the same device token.
    case tooManyRequests
    // 500, 503
    /// An internal server error.
    case internalServerError
    /// The service is unavailable.
    case serviceUnavailable
    /// The APNs server is shutting down.
    case shutdown
    /// A reason APNs does not document (or documented after this list was written), as sent.
    case unknown(String)

    /// Every documented reason, in APNs' order.
    public static let documented: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic, .deviceTokenNotForTopic,
        .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed,
        .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken,
        .unrelatedKeyIdInToken, .badEnvironmentKeyInToken, .badPath, .methodNotAllowed, .expiredToken, .unregistered,
        .payloadTooLarge, .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    private static let byText = Dictionary(uniqueKeysWithValues: documented.map { ($0.rawValue, $0) })

    /// The reason APNs calls `rawValue`: a documented case, else ``unknown(_:)`` (never nil).
    public init(rawValue: String) {
        self = Self.byText[rawValue] ?? .unknown(rawValue)
    }

    /// The text as APNs sends it (`BadDeviceToken`).
    public var rawValue: String {
        switch self {
        case .badCollapseId: "BadCollapseId"
        case .badDeviceToken: "BadDeviceToken"
        case .badExpirationDate: "BadExpirationDate"
        case .badMessageId: "BadMessageId"
        case .badPriority: "BadPriority"
        case .badTopic: "BadTopic"
        case .deviceTokenNotForTopic: "DeviceTokenNotForTopic"
        case .duplicateHeaders: "DuplicateHeaders"
        case .idleTimeout: "IdleTimeout"
        case .invalidPushType: "InvalidPushType"
        case .missingDeviceToken: "MissingDeviceToken"
        case .missingTopic: "MissingTopic"
        case .payloadEmpty: "PayloadEmpty"
        case .topicDisallowed: "TopicDisallowed"
        case .badCertificate: "BadCertificate"
        case .badCertificateEnvironment: "BadCertificateEnvironment"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .forbidden: "Forbidden"
        case .invalidProviderToken: "InvalidProviderToken"
        case .missingProviderToken: "MissingProviderToken"
        case .unrelatedKeyIdInToken: "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyInToken: "BadEnvironmentKeyInToken"
        case .badPath: "BadPath"
        case .methodNotAllowed: "MethodNotAllowed"
        case .expiredToken: "ExpiredToken"
        case .unregistered: "Unregistered"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .shutdown: "Shutdown"
        case .unknown(let text): text
        }
    }

    /// ``rawValue``: a reason reads in text as APNs sent it.
    public var description: String { rawValue }

    /// Whether both are the same reason (`unknown("BadTopic")` is `badTopic`).
    public static func == (lhs: APNsReason, rhs: APNsReason) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the reason's text.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
