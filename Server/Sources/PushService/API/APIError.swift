#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPServer

/// An error answer: `{"error":{"code","message","details"}}` with an HTTP status (§2).
public struct APIError: Error, Sendable {
    /// HTTP status.
    public var status: Int
    /// Stable code, e.g. `ERR_BAD_REQUEST`.
    public var code: String
    /// Human-readable message; never contains a secret.
    public var message: String
    /// Field-level details (field name → problem).
    public var details: [String: String]

    /// Creates an error.
    public init(_ status: Int, _ code: String, _ message: String, details: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
    }

    /// The envelope as an HTTP response.
    public var response: HTTPResponse {
        let body: [String: Any] = ["error": ["code": code, "message": message, "details": details]]
        return .json(status, JSON.encode(body))
    }

    // MARK: Common errors

    static func badRequest(_ message: String, field: String? = nil, problem: String? = nil) -> APIError {
        APIError(400, "ERR_BAD_REQUEST", message, details: field.map { [$0: problem ?? "invalid"] } ?? [:])
    }

    static let emptyAuthToken = APIError(401, "AUTH_ERR_EMPTY_AUTH_TOKEN", "The authToken header is missing.")
    static let authTokenNotFound = APIError(401, "AUTH_ERR_AUTH_TOKEN_NOT_FOUND", "The auth token does not exist.")
    static let emptyAppId = APIError(401, "AUTH_ERR_EMPTY_APPID", "The appid header is missing.")
    static let emptyAPIKey = APIError(401, "AUTH_ERR_EMPTY_APIKEY", "The apikey header is missing.")
    static let apiKeyNotFound = APIError(401, "AUTH_ERR_APIKEY_NOT_FOUND", "The apikey does not exist.")
    static let appNotFound = APIError(404, "ERR_APP_NOT_FOUND", "No app has this id.")
    static let providerNotFound = APIError(404, "ERR_PROVIDER_NOT_FOUND", "No push provider has this id.")
    static let notCallRecipient = APIError(
        403, "ERR_NOT_CALL_RECIPIENT", "No call with this session id was pushed to you: only its recipients can answer it.")
    static let tooManyRequests = APIError(429, "ERR_TOO_MANY_REQUESTS", "Too many requests for this auth token; slow down.")
    static let tooLarge = APIError(413, "ERR_PAYLOAD_TOO_LARGE", "The request body is too large.")
    static let notFound = APIError(404, "ERR_NOT_FOUND", "No such endpoint.")
    static let methodNotAllowed = APIError(405, "ERR_METHOD_NOT_ALLOWED", "The endpoint does not accept this method.")
    static let operationFailed = APIError(500, "ERR_OPERATION_FAILED", "The operation failed.")
}
