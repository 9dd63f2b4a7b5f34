import PushCrypto
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

extension AdminAPI {
    func createUser(_ call: Call) throws -> Any {
        let body = try call.body()
        let uid = try body.string("uid", maxLength: 128)
        try Validate.identifier(uid, field: "uid")
        let record = UserRecord(
            appId: call.appId, uid: uid, name: try body.optionalString("name", maxLength: 256) ?? uid,
            avatar: try body.optionalString("avatar", maxLength: 2_048), createdAt: service.now)
        do {
            try service.store.createUser(record)
        } catch StoreError.conflict {
            throw APIError.uidAlreadyExists
        }
        var value = userJSON(record)
        if try body.bool("withAuthToken") == true {
            value["authToken"] = try issueAuthToken(record)
        }
        return value
    }

    func createAuthToken(_ user: UserRecord) throws -> Any {
        ["uid": user.uid, "authToken": try issueAuthToken(user), "createdAt": Self.seconds(service.now)]
    }

    /// Creates a token, stores its hash, and returns the only copy of the token text.
    func issueAuthToken(_ user: UserRecord, token: String? = nil) throws -> String {
        let text = token ?? "\(user.uid)_\(Crypto.randomBytes(24).hexString)"
        try service.store.addAuthToken(
            AuthTokenRecord(
                hash: Crypto.sha256(text), appId: user.appId, uid: user.uid, hint: String(text.prefix(user.uid.count + 5)) + "…",
                createdAt: service.now))
        service.logger.info("auth token issued app=\(user.appId) uid=\(user.uid)")
        return text
    }
}
