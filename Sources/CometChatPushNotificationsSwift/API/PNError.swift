import Foundation

/// The result type of the SDK's completions.
public typealias PNResult<T> = Result<T, PNError>

/// An error reported by the SDK: a stable ``Code`` and a human-readable message.
///
/// As an `NSError` its domain is ``errorDomain`` and its code is ``Code-swift.enum`` raw value.
#if canImport(ObjectiveC)
@objc(PNError) @objcMembers
#endif
public final class PNError: NSObject, Error, CustomNSError, @unchecked Sendable {
    // @unchecked: every stored property is an immutable value of a Sendable type.

    /// What kind of failure this is.
    #if canImport(ObjectiveC)
    @objc(PNErrorCode)
    #endif
    public enum Code: Int, Sendable, CaseIterable {
        /// `initialize(config:)` has not run, or its configuration was invalid (blank `appId` or `region`).
        case notInitialised = 1
        /// No user is logged in, so nothing can be sent on a user's behalf.
        case notLoggedIn = 2
        /// `providerId` is missing from `PNConfiguration`: tokens cannot be registered.
        case providerRequired = 3
        /// The feature needs a product (Chat or Calls) that the app does not link.
        case productNotInstalled = 4
        /// The service answered with an error (its code is in ``PNError/serverCode``).
        case serverError = 5
        /// No answer from the service (offline, timeout) or a gateway error (502, 503, 504).
        case networkError = 6
        /// The call needs a self-hosted push service (`PNConfiguration.clientHost` set);
        /// CometChat's hosted client API has no such call. Nothing was sent.
        case notSupported = 7

        /// The case's name, for logs: `"providerRequired"`.
        public var name: String {
            switch self {
            case .notInitialised: return "notInitialised"
            case .notLoggedIn: return "notLoggedIn"
            case .providerRequired: return "providerRequired"
            case .productNotInstalled: return "productNotInstalled"
            case .serverError: return "serverError"
            case .networkError: return "networkError"
            case .notSupported: return "notSupported"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable description. It never contains a token or an auth token.
    public let message: String
    /// The service's error code (`AUTH_ERR_AUTH_TOKEN_NOT_FOUND`, `ERR_BAD_REQUEST`, …), if any.
    public let serverCode: String?
    /// The HTTP status of the answer, or 0 when there was none.
    public let httpStatus: Int

    /// Creates an error.
    public init(code: Code, message: String, serverCode: String? = nil, httpStatus: Int = 0) {
        self.code = code
        self.message = message
        self.serverCode = serverCode
        self.httpStatus = httpStatus
    }

    /// `"com.cometchat.pushnotifications"`.
    public static let domain = "com.cometchat.pushnotifications"
    /// The error domain as an `NSError`.
    public static var errorDomain: String { domain }
    /// The error code as an `NSError`.
    public var errorCode: Int { code.rawValue }
    /// The message as the `NSError`'s localized description.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }

    /// `"serverError: message (CODE)"`.
    public override var description: String {
        var text = "\(code.name): \(message)"
        if let serverCode { text += " (\(serverCode))" }
        return text
    }

    /// Two errors are equal when their code, message and server code are.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? PNError else { return false }
        return code == other.code && message == other.message && serverCode == other.serverCode
    }

    /// Hash of the code and server code.
    public override var hash: Int { code.rawValue &* 31 &+ (serverCode?.hashValue ?? 0) }

    static func notInitialised(
        _ why: String = "CometChatPushNotifications.initialize(config:) has not run with a valid configuration."
    ) -> PNError {
        PNError(code: .notInitialised, message: why)
    }

    static func notLoggedIn(_ why: String = "No user is logged in.") -> PNError {
        PNError(code: .notLoggedIn, message: why)
    }

    static func notSupported(_ call: String) -> PNError {
        PNError(
            code: .notSupported,
            message: "\(call) needs a self-hosted push service (PNConfiguration.clientHost); "
                + "CometChat's hosted API has no such call. Nothing was sent.")
    }

    static var providerRequired: PNError {
        PNError(code: .providerRequired, message: "PNConfiguration.providerId is missing: push tokens cannot be registered.")
    }
}
