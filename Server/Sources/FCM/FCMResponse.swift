#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answer to one `messages:send`.
public enum FCMResponse: Sendable, Equatable {
    /// FCM answered. `errorCode` is the `FcmError` detail (`UNREGISTERED`, `QUOTA_EXCEEDED`,
    /// …) or else the error `status` (`INVALID_ARGUMENT`, `UNAVAILABLE`, …).
    case answered(status: Int, errorCode: String?, retryAfter: TimeInterval?)
    /// The access token could not be obtained.
    case authFailure(String)
    /// No answer.
    case transportFailure(String)
    /// The access token could not be asked for: the destination policy refused where
    /// `token_uri` leads ("destination refused: 127.0.0.1 is loopback"). Nothing was sent; the
    /// provider needs fixing.
    case destinationRefused(String)

    struct ErrorBody: Decodable {
        struct Inner: Decodable {
            struct Detail: Decodable {
                let errorCode: String?
            }
            let status: String?
            let details: [Detail]?
        }
        let error: Inner?
    }

    /// Parses an HTTP answer.
    static func parse(status: Int, headers: [String: String], body: [UInt8]) -> FCMResponse {
        var code: String?
        if status != 200, let parsed = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) {
            code = parsed.error?.details?.compactMap(\.errorCode).first ?? parsed.error?.status
        }
        return .answered(status: status, errorCode: code, retryAfter: headers["retry-after"].flatMap { Double($0) })
    }
}
