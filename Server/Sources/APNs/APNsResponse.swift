import Foundation

/// What came back for one notification.
public enum APNsResponse: Sendable, Equatable {
    /// APNs answered with an HTTP status (200 accepted, anything else refused).
    case answered(APNsAnswer)
    /// The notification failed the local checks and was not sent (reason as APNs names it).
    case rejectedLocally(reason: String)
    /// No answer: connection refused or lost, TLS failure, timeout.
    case transportFailure(message: String)
}

/// An HTTP answer from APNs.
public struct APNsAnswer: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The `reason` of the JSON error body, if any.
    public var reason: String?
    /// For 410: the last time APNs knew the token was valid (`timestamp`, milliseconds).
    public var unregisteredAt: Date?
    /// The `retry-after` header, in seconds, if any.
    public var retryAfter: TimeInterval?
    /// The `apns-id` header.
    public var apnsID: String?

    /// Creates an answer.
    public init(
        status: Int, reason: String? = nil, unregisteredAt: Date? = nil,
        retryAfter: TimeInterval? = nil, apnsID: String? = nil
    ) {
        self.status = status
        self.reason = reason
        self.unregisteredAt = unregisteredAt
        self.retryAfter = retryAfter
        self.apnsID = apnsID
    }

    struct ErrorBody: Decodable {
        let reason: String?
        let timestamp: Double?
    }

    /// Parses status, headers and the JSON error body.
    init(status: Int, headers: [String: String], body: [UInt8]) {
        var reason: String?
        var timestamp: Date?
        if !body.isEmpty, let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) {
            reason = error.reason
            timestamp = error.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) }
        }
        self.init(
            status: status, reason: reason, unregisteredAt: timestamp,
            retryAfter: headers["retry-after"].flatMap(RetryAfter.parse), apnsID: headers["apns-id"])
    }
}

/// Parses `Retry-After`: delta seconds, or an HTTP date.
public enum RetryAfter {
    /// Seconds to wait, or nil if the value is not understood.
    public static func parse(_ value: String) -> TimeInterval? {
        if let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }
}
