import CurlHTTP
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends messages with FCM HTTP v1 (`POST /v1/projects/{project}/messages:send`) using an
/// OAuth access token obtained from the service account.
public final class FCMClient: Sendable {
    /// The access-token cache.
    public let tokens: FCMAccessTokens
    private let account: FCMServiceAccount
    private let http: HTTP2Client
    private let baseURL: String

    /// Creates a client.
    /// - Parameters:
    ///   - account: the service account.
    ///   - baseURL: `https://fcm.googleapis.com`, or a mock's URL (the operator's choice: not
    ///     checked).
    ///   - http: the connection pool (shared with the token exchange).
    ///   - tokenDestinations: where the token exchange at the account's `token_uri` may connect
    ///     (``FCMServiceAccount/tokenDestinations(for:base:)``); by default public `https`
    ///     addresses.
    ///   - now: the clock.
    public init(
        account: FCMServiceAccount, baseURL: String = "https://fcm.googleapis.com", http: HTTP2Client,
        tokenDestinations: DestinationPolicy = DestinationPolicy(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.account = account
        self.http = http
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.tokens = FCMAccessTokens(account: account, http: http, destinations: tokenDestinations, now: now)
    }

    /// `project_id` as one path segment of the send URL: every byte but letters, digits and
    /// `-._~:` percent-encoded, and a segment of dots only (`.`, `..`) encoded whole, so that no
    /// stored value can move the request (and its bearer token) to another path.
    public static func pathSegment(_ value: String) -> String {
        let onlyDots = !value.isEmpty && value.utf8.allSatisfy { $0 == UInt8(ascii: ".") }
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in value.utf8 {
            let alphanumeric = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            if alphanumeric || (!onlyDots && Array("-._~:".utf8).contains(byte)) {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Sends one message (the JSON object that goes under `"message"`). A 401 answer
    /// discards the access token and retries once with a new one.
    public func send(message: [UInt8]) async -> FCMResponse {
        let first = await attempt(message)
        guard case .answered(401, _, _) = first.response, let used = first.token else { return first.response }
        tokens.invalidate(used)
        return await attempt(message).response
    }

    private func attempt(_ message: [UInt8]) async -> (response: FCMResponse, token: String?) {
        let token: String
        switch await tokens.token() {
        case .success(let value): token = value
        case .failure(.transport(let message)): return (.transportFailure(message), nil)
        case .failure(.auth(let message)): return (.authFailure(message), nil)
        case .failure(.destinationRefused(let message)): return (.destinationRefused(message), nil)
        }
        let body = Array(#"{"message":"#.utf8) + message + [UInt8(ascii: "}")]
        let request = OutboundRequest(
            url: baseURL + "/v1/projects/" + Self.pathSegment(account.projectId) + "/messages:send",
            headers: [("authorization", "Bearer " + token), ("content-type", "application/json")],
            body: body, timeoutMilliseconds: 15_000)
        switch await http.send(request) {
        case .success(let response):
            return (FCMResponse.parse(status: response.status, headers: response.headers, body: response.body), token)
        case .failure(let error):
            return (.transportFailure(error.description), token)
        }
    }
}
