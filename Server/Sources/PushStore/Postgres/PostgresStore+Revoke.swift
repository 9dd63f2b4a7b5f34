#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension PostgresStore {
    /// One transaction: the auth tokens (one, or all of the user's), the push tokens registered
    /// with them (kept as revoked), and their jobs still waiting (skipped, rule `revoked`). The
    /// waiting jobs are found through the queue (only jobs still to do are in it) and their queue
    /// rows locked in id order, so a claim cannot lease one in between.
    public func revokeAuthTokens(appId: String, uid: String, hash: Data?, now: Date) throws -> Revocation {
        try withConnection { connection in
            try connection.transaction {
                let hashes = try connection.query(
                    "DELETE FROM auth_tokens WHERE app_id = $1 AND uid = $2" + (hash == nil ? "" : " AND hash = $3") + " RETURNING hash",
                    [.text(appId), .text(uid)] + (hash.map { [.bytea($0)] } ?? [])
                ).map { $0.blob(0) }
                guard !hashes.isEmpty else { return Revocation(authTokens: 0, pushTokens: 0, skippedJobs: 0) }
                let tokens = try connection.query(
                    """
                    DELETE FROM push_tokens WHERE app_id = $1 AND auth_token_hash = ANY($2::bytea[])
                    RETURNING uid, token, platform, provider_id, environment
                    """,
                    [.text(appId), .byteaArray(hashes)]
                ).map {
                    RevokedPushToken(
                        appId: appId, uid: $0.text(0), token: $0.text(1), platform: TokenPlatform(rawValue: $0.text(2)) ?? .apnsDevice,
                        providerId: $0.text(3), environment: $0.optionalText(4).flatMap(TokenEnvironment.init(rawValue:)), revokedAt: now)
                }
                guard !tokens.isEmpty else { return Revocation(authTokens: hashes.count, pushTokens: 0, skippedJobs: 0) }
                try connection.query(
                    """
                    INSERT INTO revoked_push_tokens (app_id, uid, token, platform, provider_id, environment, revoked_at)
                    SELECT $1, t.uid, t.token, t.platform, t.provider_id, t.environment, $2
                    FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS t(uid, token, platform, provider_id, environment)
                    ON CONFLICT (app_id, uid, token) DO UPDATE SET platform = excluded.platform, provider_id = excluded.provider_id,
                        environment = excluded.environment, revoked_at = excluded.revoked_at
                    """,
                    [
                        .text(appId), .date(now), .textArray(tokens.map(\.uid)), .textArray(tokens.map(\.token)),
                        .textArray(tokens.map(\.platform.rawValue)), .textArray(tokens.map(\.providerId)),
                        .textArray(tokens.map(\.environment?.rawValue)),
                    ])
                let skipped = try connection.query(
                    """
                    WITH waiting AS MATERIALIZED (
                        SELECT q.id FROM push_queue q JOIN push_jobs j ON j.id = q.id
                        WHERE q.lane <> \(PostgresMigrations.leasedLane) AND j.app_id = $1 AND j.token = ANY($2::text[])
                        ORDER BY q.id FOR UPDATE OF q),
                    gone AS (DELETE FROM push_queue WHERE id IN (SELECT id FROM waiting) RETURNING id, attempts)
                    UPDATE push_jobs j SET state = 'skipped', rule = $3, finished_at = $4, lease_until = NULL, attempts = g.attempts
                    FROM gone g WHERE j.id = g.id
                    """,
                    [.text(appId), .textArray(tokens.map(\.token)), .text(Revocation.rule), .date(now)]
                ).affected
                return Revocation(authTokens: hashes.count, pushTokens: tokens.count, skippedJobs: skipped)
            }
        }
    }
}
