#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SQLiteStore {
    public func createUser(_ user: UserRecord) throws {
        try withConnection {
            try $0.run(
                "INSERT INTO users (app_id, uid, name, avatar, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(user.appId), .text(user.uid), .text(user.name), .optionalText(user.avatar), .date(user.createdAt)])
        }
    }

    public func user(appId: String, uid: String) throws -> UserRecord? {
        try selectUsers("WHERE app_id = ? AND uid = ?", [.text(appId), .text(uid)]).first
    }

    public func users(appId: String) throws -> [UserRecord] {
        try selectUsers("WHERE app_id = ? ORDER BY uid", [.text(appId)])
    }

    public func deleteUser(appId: String, uid: String) throws -> Bool {
        try withConnection { connection in
            try connection.transaction {
                let deleted = try connection.run("DELETE FROM users WHERE app_id = ? AND uid = ?", [.text(appId), .text(uid)]) > 0
                // Group members need not be users (no foreign key): the user's memberships go
                // with the user, found through `push_group_members_user`.
                if deleted {
                    try connection.run("DELETE FROM push_group_members WHERE app_id = ? AND uid = ?", [.text(appId), .text(uid)])
                }
                return deleted
            }
        }
    }

    public func addAuthToken(_ token: AuthTokenRecord) throws {
        try withConnection {
            try $0.run(
                "INSERT INTO auth_tokens (hash, app_id, uid, hint, created_at) VALUES (?, ?, ?, ?, ?)",
                [.blob(token.hash), .text(token.appId), .text(token.uid), .text(token.hint), .date(token.createdAt)])
        }
    }

    public func authToken(hash: Data) throws -> AuthTokenRecord? {
        try selectAuthTokens("WHERE hash = ?", [.blob(hash)]).first
    }

    public func authTokens(appId: String, uid: String) throws -> [AuthTokenRecord] {
        try selectAuthTokens("WHERE app_id = ? AND uid = ? ORDER BY created_at", [.text(appId), .text(uid)])
    }

    private func selectUsers(_ clause: String, _ values: [SQLValue]) throws -> [UserRecord] {
        try withConnection {
            try $0.query("SELECT app_id, uid, name, avatar, created_at FROM users \(clause)", values) {
                UserRecord(appId: $0.text(0), uid: $0.text(1), name: $0.text(2), avatar: $0.optionalText(3), createdAt: $0.date(4))
            }
        }
    }

    private func selectAuthTokens(_ clause: String, _ values: [SQLValue]) throws -> [AuthTokenRecord] {
        try withConnection {
            try $0.query("SELECT hash, app_id, uid, hint, created_at FROM auth_tokens \(clause)", values) {
                AuthTokenRecord(hash: $0.blob(0), appId: $0.text(1), uid: $0.text(2), hint: $0.text(3), createdAt: $0.date(4))
            }
        }
    }
}
