#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension SQLiteStore {
    /// One transaction: the auth tokens (one, or all of the user's), the push tokens registered
    /// with them (kept as revoked), and their jobs still waiting (skipped, rule `revoked`).
    public func revokeAuthTokens(appId: String, uid: String, hash: Data?, now: Date) throws -> Revocation {
        try withConnection { connection in
            try connection.transaction {
                let hashes = try connection.query(
                    "DELETE FROM auth_tokens WHERE app_id = ? AND uid = ?" + (hash == nil ? "" : " AND hash = ?") + " RETURNING hash",
                    [.text(appId), .text(uid)] + (hash.map { [.blob($0)] } ?? [])
                ) { $0.blob(0) }
                var tokens: [RevokedPushToken] = []
                for hash in hashes {
                    tokens += try connection.query(
                        "DELETE FROM push_tokens WHERE app_id = ? AND auth_token_hash = ? RETURNING uid, token, platform, provider_id, environment",
                        [.text(appId), .blob(hash)]
                    ) {
                        RevokedPushToken(
                            appId: appId, uid: $0.text(0), token: $0.text(1), platform: TokenPlatform(rawValue: $0.text(2)) ?? .apnsDevice,
                            providerId: $0.text(3), environment: $0.optionalText(4).flatMap(TokenEnvironment.init(rawValue:)),
                            revokedAt: now)
                    }
                }
                for token in tokens {
                    try connection.run(
                        """
                        INSERT INTO revoked_push_tokens (app_id, uid, token, platform, provider_id, environment, revoked_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (app_id, uid, token) DO UPDATE SET platform = excluded.platform, provider_id = excluded.provider_id,
                            environment = excluded.environment, revoked_at = excluded.revoked_at
                        """,
                        [
                            .text(token.appId), .text(token.uid), .text(token.token), .text(token.platform.rawValue),
                            .text(token.providerId),
                            .optionalText(token.environment?.rawValue), .date(now),
                        ])
                }
                var skipped = 0
                for start in stride(from: 0, to: tokens.count, by: 500) {
                    let chunk = tokens[start..<min(start + 500, tokens.count)]
                    let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    skipped += try connection.run(
                        "UPDATE push_jobs SET state = ?, rule = ?, finished_at = ?, lease_until = NULL "
                            + "WHERE state = ? AND app_id = ? AND token IN (\(placeholders))",
                        [.text(JobState.skipped), .text(Revocation.rule), .date(now), .text(JobState.pending), .text(appId)]
                            + chunk.map { .text($0.token) })
                }
                return Revocation(authTokens: hashes.count, pushTokens: tokens.count, skippedJobs: skipped)
            }
        }
    }
}
