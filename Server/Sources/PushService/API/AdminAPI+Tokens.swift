#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// Listing and deleting push tokens (§3).
extension AdminAPI {
    var tokenRoutes: [Route] {
        [
            Route("GET", "notifications/push/v1/tokens", .adminApp) { call in
                let uid = call.request.query["uid"].flatMap { $0.isEmpty ? nil : $0 }
                return ["pushTokens": try service.store.tokens(appId: call.appId, uid: uid).map(TokenJSON.admin)]
            },
            Route("DELETE", "notifications/push/v1/tokens/:pushToken", .adminApp) { call in
                guard try service.store.deleteToken(appId: call.appId, token: call.parameter("pushToken")) else {
                    throw APIError.tokenNotFound
                }
                return ["deleted": 1]
            },
        ]
    }
}

/// JSON shapes of a token.
enum TokenJSON {
    /// `pushTokenType`: which service delivers the token and how.
    static func type(of platform: TokenPlatform) -> String {
        switch platform {
        case .apnsDevice: return "apns"
        case .apnsVoIP: return "voip"
        case .fcm: return "fcm"
        }
    }

    /// The client API's answer to a registration (Contract/client/register-*.json).
    static func client(_ token: PushTokenRecord) -> [String: Any] {
        var value: [String: Any] = [
            "pushToken": token.token, "platform": token.platform.rawValue, "providerId": token.providerId, "uid": token.uid,
            "createdAt": AdminAPI.seconds(token.createdAt), "updatedAt": AdminAPI.seconds(token.updatedAt),
        ]
        if let timezone = token.timezone { value["timezone"] = timezone }
        if let environment = token.environment { value["environment"] = environment.rawValue }
        if !token.languages.isEmpty { value["languages"] = token.languages }
        return value
    }

    /// The admin listing (§3). `authToken` is a hint: the service only keeps hashes.
    /// `encrypted` says whether the device registered Web Push keys (issue 28); the keys
    /// themselves are never listed.
    static func admin(_ token: PushTokenRecord) -> [String: Any] {
        var value = client(token)
        value["authToken"] = token.authTokenHint
        value["pushTokenType"] = type(of: token.platform)
        value["encrypted"] = token.encryption != nil
        return value
    }
}
