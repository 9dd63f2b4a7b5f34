#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension SQLiteStore {
    public func registerToken(_ token: PushTokenRecord, maxPerUser: Int) throws -> PushTokenRecord {
        try withConnection { connection in
            try connection.transaction {
                let seq = try connection.query("SELECT COALESCE(MAX(seq), 0) + 1 FROM push_tokens") { $0.int(0) }.first ?? 1
                try connection.run(
                    """
                    INSERT INTO push_tokens (app_id, token, uid, platform, provider_id, timezone, auth_token_hash,
                        auth_token_hint, created_at, updated_at, seq, environment)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app_id, token) DO UPDATE SET uid = excluded.uid, platform = excluded.platform,
                        provider_id = excluded.provider_id, timezone = excluded.timezone,
                        auth_token_hash = excluded.auth_token_hash, auth_token_hint = excluded.auth_token_hint,
                        updated_at = excluded.updated_at, seq = excluded.seq,
                        environment = COALESCE(excluded.environment, push_tokens.environment)
                    """,
                    [
                        .text(token.appId), .text(token.token), .text(token.uid), .text(token.platform.rawValue), .text(token.providerId),
                        .optionalText(token.timezone), .blob(token.authTokenHash), .text(token.authTokenHint),
                        .date(token.createdAt), .date(token.updatedAt), .int(seq), .optionalText(token.environment?.rawValue),
                    ])
                try connection.run(
                    """
                    DELETE FROM push_tokens WHERE app_id = ? AND uid = ? AND token NOT IN (
                        SELECT token FROM push_tokens WHERE app_id = ? AND uid = ? ORDER BY seq DESC LIMIT ?)
                    """,
                    [.text(token.appId), .text(token.uid), .text(token.appId), .text(token.uid), .int(Int64(maxPerUser))])
                let stored = try connection.query(
                    Self.tokenColumns + " WHERE app_id = ? AND token = ?", [.text(token.appId), .text(token.token)], Self.tokenRow)
                guard let record = stored.first else { throw StoreError.notFound }
                return record
            }
        }
    }

    public func deleteTokens(appId: String, authTokenHash: Data) throws -> Int {
        try withConnection {
            try $0.run("DELETE FROM push_tokens WHERE app_id = ? AND auth_token_hash = ?", [.text(appId), .blob(authTokenHash)])
        }
    }

    public func deleteToken(appId: String, token: String) throws -> Bool {
        try withConnection {
            try $0.run("DELETE FROM push_tokens WHERE app_id = ? AND token = ?", [.text(appId), .text(token)]) > 0
        }
    }

    public func tokens(appId: String, uid: String?) throws -> [PushTokenRecord] {
        try withConnection { connection in
            if let uid {
                return try connection.query(
                    Self.tokenColumns + " WHERE app_id = ? AND uid = ? ORDER BY seq", [.text(appId), .text(uid)], Self.tokenRow)
            }
            return try connection.query(Self.tokenColumns + " WHERE app_id = ? ORDER BY seq", [.text(appId)], Self.tokenRow)
        }
    }

    static let tokenColumns = """
        SELECT app_id, uid, token, platform, provider_id, timezone, auth_token_hash, auth_token_hint, created_at, updated_at,
            environment
        FROM push_tokens
        """

    static func tokenRow(_ row: SQLiteStatement) -> PushTokenRecord {
        PushTokenRecord(
            appId: row.text(0), uid: row.text(1), token: row.text(2), platform: TokenPlatform(rawValue: row.text(3)) ?? .apnsDevice,
            providerId: row.text(4), timezone: row.optionalText(5), authTokenHash: row.blob(6), authTokenHint: row.text(7),
            createdAt: row.date(8), updatedAt: row.date(9), environment: row.optionalText(10).flatMap(TokenEnvironment.init(rawValue:)))
    }

    /// Stores the APNs environment a send found a token to work in (it and its pending jobs
    /// use it from then on).
    public func recordTokenEnvironment(appId: String, token: String, environment: TokenEnvironment) throws {
        try withConnection { connection in
            try connection.transaction {
                try connection.run(
                    "UPDATE push_tokens SET environment = ? WHERE app_id = ? AND token = ?",
                    [.text(environment.rawValue), .text(appId), .text(token)])
                try connection.run(
                    "UPDATE push_jobs SET environment = ? WHERE app_id = ? AND token = ? AND state = ? AND environment IS NULL",
                    [.text(environment.rawValue), .text(appId), .text(token), .text(JobState.pending)])
            }
        }
    }
}
