import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What came back for one notification.
public enum APNsResponse: Sendable, Equatable {
    /// APNs answered with an HTTP status (200 accepted, anything else refused).
    case answered(APNsAnswer)
    /// The notification failed the local checks and was not sent (the reason APNs would give).
    case rejectedLocally(reason: APNsReason)
    /// No answer: connection refused or lost, TLS failure, timeout.
    case transportFailure(message: String)
}

/// An HTTP answer from APNs.
public struct APNsAnswer: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The `reason` of the JSON error body, if any.
    public var reason: APNsReason?
    /// For 410: the last time APNs knew the token was valid (`timestamp`, milliseconds).
    public var unregisteredAt: Date?
    /// The `retry-after` header, in seconds, if any.
    public var retryAfter: TimeInterval?
    /// The `apns-id` header.
    public var apnsId: String?

    /// Creates an answer.
    public init(
        status: Int, reason: APNsReason? = nil, unregisteredAt: Date? = nil,
        retryAfter: TimeInterval? = nil, apnsId: String? = nil
    ) {
        self.status = status
        self.reason = reason
        self.unregisteredAt = unregisteredAt
        self.retryAfter = retryAfter
        self.apnsId = apnsId
    }

    struct ErrorBody: Decodable {
        let reason: String?
        let timestamp: Double?
    }

    /// Parses status, headers and the JSON error body (its `reason` into an ``APNsReason``).
    init(status: Int, headers: [String: String], body: [UInt8]) {
        var reason: APNsReason?
        var timestamp: Date?
        if !body.isEmpty, let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) {
            reason = error.reason.map(APNsReason.init(rawValue:))
            timestamp = error.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) }
        }
        self.init(
            status: status, reason: reason, unregisteredAt: timestamp,
            retryAfter: headers["retry-after"].flatMap { RetryAfter.parse($0) }, apnsId: headers["apns-id"])
    }
}

/// Parses `Retry-After`: delta seconds, or an HTTP date.
public enum RetryAfter {
    /// Seconds to wait, or nil if the value is not understood.
    public static func parse(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingWhitespace
        if let seconds = Double(trimmed), seconds >= 0, seconds.isFinite { return seconds }
        return httpDate(trimmed).map { max(0, $0.timeIntervalSince(now)) }
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An IMF-fixdate (RFC 9110 §5.6.7), `Sun, 06 Nov 1994 08:49:37 GMT`, the only HTTP date
    /// form senders may generate.
    static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), parts[1].count == 2, (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3]), parts[3].count == 4
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard parts[4].count == 8, clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]),
            let second = Int(clock[2]), (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil algorithm).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
