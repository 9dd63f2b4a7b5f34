import PushCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

/// Revoking auth tokens (Contract/WIRE-CONTRACT.md §3): the push tokens registered with them go
/// in the same transaction, and their jobs still queued are skipped with the rule `revoked`.
extension AdminAPI {
    var revokeRoutes: [Route] {
        [
            Route("DELETE", "users/:uid/auth_tokens", .adminApp) { call in
                _ = try existingUser(call)
                return revoked(try service.store.revokeAuthTokens(appId: call.appId, uid: call.parameter("uid"), now: service.now), call)
            },
            Route("DELETE", "users/:uid/auth_tokens/:authToken", .adminApp) { call in
                let revocation = try service.store.revokeAuthToken(
                    appId: call.appId, uid: call.parameter("uid"), hash: Crypto.sha256(call.parameter("authToken")), now: service.now)
                // 404, not the client API's 401: the admin key is fine, the token is unknown.
                guard let revocation else { throw APIError.userAuthTokenNotFound }
                return revoked(revocation, call)
            },
        ]
    }

    /// `{revoked, pushTokens}`, and a log line with the counts (never a token).
    private func revoked(_ revocation: Revocation, _ call: Call) -> [String: Any] {
        service.logger.info(
            "auth tokens revoked app=\(call.appId) uid=\(call.parameter("uid")) revoked=\(revocation.authTokens) "
                + "pushTokens=\(revocation.pushTokens) skippedJobs=\(revocation.skippedJobs)")
        return ["revoked": revocation.authTokens, "pushTokens": revocation.pushTokens]
    }
}
