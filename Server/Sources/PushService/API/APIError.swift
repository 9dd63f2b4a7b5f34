#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPServer

/// An error answer: `{"error":{"code","message","details"}}` with an HTTP status (§2).
///
/// Every error the API can answer is declared here, once: the codes are a closed set
/// (``Code``, each with its status), and each error is a static member (or, when its message
/// names what was asked for, a static function). Handlers throw those; nothing else builds an
/// `APIError`.
public struct APIError: Error, Sendable {
    /// Every error code of the API, with its HTTP status. `Server/openapi.json` lists the same
    /// codes in its `Error` schema (`OpenAPITests` compares them).
    public enum Code: String, Sendable, CaseIterable {
        /// 400: the body or a parameter is not valid; `details` names the field.
        case badRequest = "ERR_BAD_REQUEST"
        /// 401: no `appid` header.
        case emptyAppId = "AUTH_ERR_EMPTY_APPID"
        /// 401: no `authToken` header.
        case emptyAuthToken = "AUTH_ERR_EMPTY_AUTH_TOKEN"
        /// 401: the auth token does not exist (the session is gone).
        case authTokenNotFound = "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"
        /// 401: no `apikey` header.
        case emptyAPIKey = "AUTH_ERR_EMPTY_APIKEY"
        /// 401: the `apikey` is not the admin key.
        case apiKeyNotFound = "AUTH_ERR_APIKEY_NOT_FOUND"
        /// 403: the caller was not pushed the call it answers.
        case notCallRecipient = "ERR_NOT_CALL_RECIPIENT"
        /// 404: no app has the `appid`.
        case appNotFound = "ERR_APP_NOT_FOUND"
        /// 404: no user has the uid.
        case uidNotFound = "ERR_UID_NOT_FOUND"
        /// 404: no provider has the id.
        case providerNotFound = "ERR_PROVIDER_NOT_FOUND"
        /// 404: no push token matches.
        case tokenNotFound = "ERR_TOKEN_NOT_FOUND"
        /// 404: the app has no group with the guid (issue 31).
        case groupNotFound = "ERR_GROUP_NOT_FOUND"
        /// 404: the user has no such auth token (admin API).
        case userAuthTokenNotFound = "ERR_AUTH_TOKEN_NOT_FOUND"
        /// 404: no route for the path, or what it names does not exist.
        case notFound = "ERR_NOT_FOUND"
        /// 405: the path exists, the method does not.
        case methodNotAllowed = "ERR_METHOD_NOT_ALLOWED"
        /// 409: an app with the id exists.
        case appAlreadyExists = "ERR_APP_ALREADY_EXISTS"
        /// 409: a user with the uid exists.
        case uidAlreadyExists = "ERR_UID_ALREADY_EXISTS"
        /// 409: a provider with the id exists.
        case providerAlreadyExists = "ERR_PROVIDER_ALREADY_EXISTS"
        /// 409: what was to be created exists.
        case alreadyExists = "ERR_ALREADY_EXISTS"
        /// 413: the body is over `--max-body-bytes`.
        case payloadTooLarge = "ERR_PAYLOAD_TOO_LARGE"
        /// 422: the `Idempotency-Key` was used with another body.
        case idempotencyKeyReused = "ERR_IDEMPOTENCY_KEY_REUSED"
        /// 429: the auth token is over its rate limit.
        case tooManyRequests = "ERR_TOO_MANY_REQUESTS"
        /// 500: the store failed.
        case operationFailed = "ERR_OPERATION_FAILED"

        /// The HTTP status answered with this code.
        public var status: Int {
            switch self {
            case .badRequest: 400
            case .emptyAppId, .emptyAuthToken, .authTokenNotFound, .emptyAPIKey, .apiKeyNotFound: 401
            case .notCallRecipient: 403
            case .appNotFound, .uidNotFound, .providerNotFound, .tokenNotFound, .groupNotFound, .userAuthTokenNotFound, .notFound: 404
            case .methodNotAllowed: 405
            case .appAlreadyExists, .uidAlreadyExists, .providerAlreadyExists, .alreadyExists: 409
            case .payloadTooLarge: 413
            case .idempotencyKeyReused: 422
            case .tooManyRequests: 429
            case .operationFailed: 500
            }
        }
    }

    /// The code.
    public let code: Code
    /// Human-readable message; never contains a secret.
    public let message: String
    /// Field-level details (field name → problem).
    public let details: [String: String]

    /// HTTP status (the code's).
    public var status: Int { code.status }

    private init(_ code: Code, _ message: String, details: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// The envelope as an HTTP response.
    public var response: HTTPResponse {
        let body: [String: Any] = ["error": ["code": code.rawValue, "message": message, "details": details]]
        return .json(status, JSON.encode(body))
    }

    // MARK: Every error the API answers

    static func badRequest(_ message: String, field: String? = nil, problem: String? = nil) -> APIError {
        APIError(.badRequest, message, details: field.map { [$0: problem ?? "invalid"] } ?? [:])
    }

    static let emptyAuthToken = APIError(.emptyAuthToken, "The authToken header is missing.")
    static let authTokenNotFound = APIError(.authTokenNotFound, "The auth token does not exist.")
    static let emptyAppId = APIError(.emptyAppId, "The appid header is missing.")
    static let emptyAPIKey = APIError(.emptyAPIKey, "The apikey header is missing.")
    static let apiKeyNotFound = APIError(.apiKeyNotFound, "The apikey does not exist.")
    static let notCallRecipient = APIError(
        .notCallRecipient, "No call with this session id was pushed to you: only its recipients can answer it.")
    static let appNotFound = APIError(.appNotFound, "No app has this id.")
    static let userNotFound = APIError(.uidNotFound, "No user has this uid.")
    static let providerNotFound = APIError(.providerNotFound, "No push provider has this id.")
    static let tokenNotFound = APIError(.tokenNotFound, "No push token matches.")
    static func groupNotFound(_ guid: String) -> APIError {
        APIError(.groupNotFound, "The app has no group \(guid): create it with PUT /groups/\(guid)/members.")
    }
    static let userAuthTokenNotFound = APIError(.userAuthTokenNotFound, "This user has no such auth token.")
    static let notFound = APIError(.notFound, "No such endpoint.")
    /// What the store did not find (`StoreError.notFound`).
    static let doesNotExist = APIError(.notFound, "It does not exist.")
    /// An app without texts for a language (issue 30).
    static func noTemplates(_ language: String) -> APIError { APIError(.notFound, "The app has no texts for \(language).") }
    static func pushNotFound(_ pushId: String) -> APIError { APIError(.notFound, "No push \(pushId) was sent to this user.") }
    static func sendRequestNotFound(_ requestId: String) -> APIError {
        APIError(.notFound, "No send request \(requestId) in this app.")
    }
    static let methodNotAllowed = APIError(.methodNotAllowed, "The endpoint does not accept this method.")
    static let appAlreadyExists = APIError(.appAlreadyExists, "An app with this id exists.")
    static let uidAlreadyExists = APIError(.uidAlreadyExists, "A user with this uid exists.")
    static let providerAlreadyExists = APIError(.providerAlreadyExists, "A provider with this id exists.")
    /// What the store found already there (`StoreError.conflict`).
    static let alreadyExists = APIError(.alreadyExists, "It already exists.")
    static let tooLarge = APIError(.payloadTooLarge, "The request body is too large.")
    static let idempotencyKeyReused = APIError(.idempotencyKeyReused, "This Idempotency-Key was used with a different request.")
    static let tooManyRequests = APIError(.tooManyRequests, "Too many requests for this auth token; slow down.")
    static let operationFailed = APIError(.operationFailed, "The operation failed.")
}
