#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

// Apps, users, auth tokens, providers and push tokens: SQLiteStore's statements in PostgreSQL.
extension PostgresStore {
    // MARK: Apps

    public func createApp(_ app: AppRecord) throws {
        try withConnection {
            try $0.query(
                """
                INSERT INTO apps (id, name, webhook_url, webhook_secret, created_at, default_apns_provider_id, default_fcm_provider_id,
                    privacy, private_placeholder, private_call_placeholder, delivery_policy, badge, localization, hold_seconds)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
                """,
                [
                    .text(app.id), .text(app.name), .text(app.webhookURL), .bytea(app.sealedWebhookSecret), .date(app.createdAt),
                    .text(app.defaultAPNsProviderId), .text(app.defaultFCMProviderId), .text(app.privacy.rawValue),
                    .text(app.privatePlaceholder), .text(app.privateCallPlaceholder), .text(app.deliveryPolicy.storedText),
                    .text(app.badge.rawValue), .text(app.localization.storedText), .int(Int64(app.holdWhileActiveSeconds)),
                ])
        }
    }

    public func updateApp(_ app: AppRecord) throws {
        let changed = try withConnection {
            try $0.query(
                """
                UPDATE apps SET name = $1, webhook_url = $2, webhook_secret = $3, privacy = $4, private_placeholder = $5,
                    private_call_placeholder = $6, delivery_policy = $7, badge = $9, localization = $10, hold_seconds = $11
                WHERE id = $8
                """,
                [
                    .text(app.name), .text(app.webhookURL), .bytea(app.sealedWebhookSecret), .text(app.privacy.rawValue),
                    .text(app.privatePlaceholder), .text(app.privateCallPlaceholder), .text(app.deliveryPolicy.storedText),
                    .text(app.id), .text(app.badge.rawValue), .text(app.localization.storedText), .int(Int64(app.holdWhileActiveSeconds)),
                ]
            ).affected
        }
        if changed == 0 { throw StoreError.notFound }
    }

    public func setDefaultProvider(appId: String, kind: ProviderRecord.Kind, providerId: String?) throws -> Bool {
        let column = SQLiteStore.defaultProviderColumn(kind)
        return try withConnection { connection in
            try connection.transaction {
                guard try connection.query("SELECT 1 FROM apps WHERE id = $1", [.text(appId)]).first(\.row) != nil else {
                    throw StoreError.notFound
                }
                return try connection.query(
                    """
                    UPDATE apps SET \(column) = $1 WHERE id = $2 AND ($1::text IS NULL
                        OR EXISTS (SELECT 1 FROM providers WHERE app_id = $2 AND id = $1 AND kind = $3))
                    """,
                    [.text(providerId), .text(appId), .text(kind.rawValue)]
                ).affected > 0
            }
        }
    }

    public func app(id: String) throws -> AppRecord? {
        try selectApps("WHERE id = $1", [.text(id)]).first
    }

    public func apps() throws -> [AppRecord] {
        try selectApps("ORDER BY id", [])
    }

    public func deleteApp(id: String) throws -> Bool {
        try withConnection { connection in
            try connection.transaction {
                // Its queued webhook events go too: with no app they could never be delivered.
                // Users (with their tokens) and providers go by ON DELETE CASCADE.
                for table in ["push_tokens", "idempotency", "calls", "auth_tokens", "webhook_jobs"] {
                    try connection.query("DELETE FROM \(table) WHERE app_id = $1", [.text(id)])
                }
                return try connection.query("DELETE FROM apps WHERE id = $1", [.text(id)]).affected > 0
            }
        }
    }

    private func selectApps(_ clause: String, _ values: [PGValue]) throws -> [AppRecord] {
        try withConnection {
            try $0.query(
                "SELECT \(SQLiteStore.appColumns) FROM apps \(clause)", values
            ).map(SQLiteStore.appRow)
        }
    }

    // MARK: Users and auth tokens

    public func createUser(_ user: UserRecord) throws {
        try withConnection {
            try $0.query(
                "INSERT INTO users (app_id, uid, name, avatar, created_at) VALUES ($1, $2, $3, $4, $5)",
                [.text(user.appId), .text(user.uid), .text(user.name), .text(user.avatar), .date(user.createdAt)])
        }
    }

    public func user(appId: String, uid: String) throws -> UserRecord? {
        try selectUsers("WHERE app_id = $1 AND uid = $2", [.text(appId), .text(uid)]).first
    }

    public func users(appId: String) throws -> [UserRecord] {
        try selectUsers("WHERE app_id = $1 ORDER BY uid", [.text(appId)])
    }

    public func deleteUser(appId: String, uid: String) throws -> Bool {
        try withConnection { connection in
            try connection.transaction {
                let deleted =
                    try connection.query("DELETE FROM users WHERE app_id = $1 AND uid = $2", [.text(appId), .text(uid)]).affected > 0
                // Group members need not be users (no foreign key): the user's memberships go
                // with the user, found through `push_group_members_user`.
                if deleted {
                    try connection.query("DELETE FROM push_group_members WHERE app_id = $1 AND uid = $2", [.text(appId), .text(uid)])
                }
                return deleted
            }
        }
    }

    public func addAuthToken(_ token: AuthTokenRecord) throws {
        try withConnection {
            try $0.query(
                "INSERT INTO auth_tokens (hash, app_id, uid, hint, created_at) VALUES ($1, $2, $3, $4, $5)",
                [.bytea(token.hash), .text(token.appId), .text(token.uid), .text(token.hint), .date(token.createdAt)])
        }
    }

    public func authToken(hash: Data) throws -> AuthTokenRecord? {
        try selectAuthTokens("WHERE hash = $1", [.bytea(hash)]).first
    }

    public func authTokens(appId: String, uid: String) throws -> [AuthTokenRecord] {
        try selectAuthTokens("WHERE app_id = $1 AND uid = $2 ORDER BY created_at", [.text(appId), .text(uid)])
    }

    private func selectUsers(_ clause: String, _ values: [PGValue]) throws -> [UserRecord] {
        try withConnection {
            try $0.query("SELECT app_id, uid, name, avatar, created_at FROM users \(clause)", values).map {
                UserRecord(appId: $0.text(0), uid: $0.text(1), name: $0.text(2), avatar: $0.optionalText(3), createdAt: $0.date(4))
            }
        }
    }

    private func selectAuthTokens(_ clause: String, _ values: [PGValue]) throws -> [AuthTokenRecord] {
        try withConnection {
            try $0.query("SELECT hash, app_id, uid, hint, created_at FROM auth_tokens \(clause)", values).map {
                AuthTokenRecord(hash: $0.blob(0), appId: $0.text(1), uid: $0.text(2), hint: $0.text(3), createdAt: $0.date(4))
            }
        }
    }

    // MARK: Providers

    public func createProvider(_ provider: ProviderRecord) throws {
        let column = SQLiteStore.defaultProviderColumn(provider.kind)
        try withConnection { connection in
            try connection.transaction {
                // The app's row first (two first providers made at once must not both see none;
                // `NO KEY`: users being added to the app are not held up).
                try connection.query("SELECT 1 FROM apps WHERE id = $1 FOR NO KEY UPDATE", [.text(provider.appId)])
                try connection.query(
                    "INSERT INTO providers (app_id, id, kind, settings, secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    [
                        .text(provider.appId), .text(provider.id), .text(provider.kind.rawValue), .bytea(provider.settings),
                        .bytea(provider.sealedSecret), .date(provider.createdAt), .date(provider.updatedAt),
                    ])
                // The app's first provider of the kind becomes its default, recorded: a second never changes it.
                try connection.query(
                    """
                    UPDATE apps SET \(column) = $1 WHERE id = $2 AND \(column) IS NULL
                        AND NOT EXISTS (SELECT 1 FROM providers WHERE app_id = $2 AND kind = $3 AND id <> $1)
                    """,
                    [.text(provider.id), .text(provider.appId), .text(provider.kind.rawValue)])
            }
        }
    }

    public func updateProvider(_ provider: ProviderRecord) throws {
        let changed = try withConnection {
            try $0.query(
                "UPDATE providers SET kind = $1, settings = $2, secret = $3, updated_at = $4, last_delivered_at = NULL WHERE app_id = $5 AND id = $6",
                [
                    .text(provider.kind.rawValue), .bytea(provider.settings), .bytea(provider.sealedSecret), .date(provider.updatedAt),
                    .text(provider.appId), .text(provider.id),
                ]
            ).affected
        }
        if changed == 0 { throw StoreError.notFound }
    }

    public func provider(appId: String, id: String) throws -> ProviderRecord? {
        try selectProviders("WHERE app_id = $1 AND id = $2", [.text(appId), .text(id)]).first
    }

    public func providers(appId: String) throws -> [ProviderRecord] {
        try selectProviders("WHERE app_id = $1 ORDER BY id", [.text(appId)])
    }

    public func deleteProvider(appId: String, id: String) throws -> Bool {
        try withConnection { connection in
            try connection.transaction {
                let deleted =
                    try connection.query("DELETE FROM providers WHERE app_id = $1 AND id = $2", [.text(appId), .text(id)]).affected > 0
                // The app has no default of the kind then, rather than a default that names nothing.
                try connection.query(
                    """
                    UPDATE apps SET default_apns_provider_id = NULLIF(default_apns_provider_id, $2),
                        default_fcm_provider_id = NULLIF(default_fcm_provider_id, $2)
                    WHERE id = $1 AND (default_apns_provider_id = $2 OR default_fcm_provider_id = $2)
                    """,
                    [.text(appId), .text(id)])
                return deleted
            }
        }
    }

    private func selectProviders(_ clause: String, _ values: [PGValue]) throws -> [ProviderRecord] {
        try withConnection {
            try $0.query("SELECT app_id, id, kind, settings, secret, created_at, updated_at FROM providers \(clause)", values).map {
                ProviderRecord(
                    appId: $0.text(0), id: $0.text(1), kind: ProviderRecord.Kind(rawValue: $0.text(2)) ?? .apns,
                    settings: $0.blob(3), sealedSecret: $0.blob(4), createdAt: $0.date(5), updatedAt: $0.date(6))
            }
        }
    }

    // MARK: Push tokens

    public func registerToken(_ token: PushTokenRecord, maxPerUser: Int) throws -> PushTokenRecord {
        try withConnection { connection in
            try connection.transaction {
                // One registration per user at a time (SQLite has one writer): concurrent ones
                // would each prune by their own snapshot and keep more than `maxPerUser`.
                try connection.query(
                    """
                    SELECT pg_advisory_xact_lock(hashtextextended(
                        'push-server tokens ' || current_schema() || ' ' || length($1) || ' ' || $1 || ' ' || $2, 0))
                    """,
                    [.text(token.appId), .text(token.uid)])
                let user: [PGValue] = [.text(token.appId), .text(token.uid)]
                let previousOwner = try connection.query(
                    "SELECT uid FROM push_tokens WHERE app_id = $1 AND token = $2", [.text(token.appId), .text(token.token)]
                ).first { $0.text(0) }
                let bound =
                    try connection.query("SELECT tokens_at_most FROM users WHERE app_id = $1 AND uid = $2", user).first {
                        $0.isNull(0) ? nil : $0.int(0)
                    } ?? nil
                // The number from the sequence: no read of the table.
                let stored = try connection.query(
                    """
                    INSERT INTO push_tokens (app_id, token, uid, platform, provider_id, timezone, auth_token_hash,
                        auth_token_hint, created_at, updated_at, seq, environment, encryption_p256dh, encryption_auth, languages)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, nextval('push_tokens_seq'), $11, $12, $13, $14)
                    ON CONFLICT (app_id, token) DO UPDATE SET uid = excluded.uid, platform = excluded.platform,
                        provider_id = excluded.provider_id, timezone = excluded.timezone,
                        auth_token_hash = excluded.auth_token_hash, auth_token_hint = excluded.auth_token_hint,
                        updated_at = excluded.updated_at, seq = excluded.seq,
                        environment = COALESCE(excluded.environment, push_tokens.environment),
                        encryption_p256dh = excluded.encryption_p256dh, encryption_auth = excluded.encryption_auth,
                        languages = excluded.languages
                    RETURNING \(Self.tokenColumnList)
                    """,
                    [
                        .text(token.appId), .text(token.token), .text(token.uid), .text(token.platform.rawValue), .text(token.providerId),
                        .text(token.timezone), .bytea(token.authTokenHash), .text(token.authTokenHint), .date(token.createdAt),
                        .date(token.updatedAt), .text(token.environment?.rawValue), .bytea(token.encryption?.p256dh),
                        .bytea(token.encryption?.sealedAuth), .text(token.storedLanguages),
                    ]
                ).first(Self.tokenRow)
                // How many tokens the user has now, at most (as in SQLite): the bound kept on the
                // user, one more when the token is new to them; counted (through the user's index)
                // only when not known or over the limit.
                let count = {
                    try connection.query("SELECT COUNT(*) FROM push_tokens WHERE app_id = $1 AND uid = $2", user).first { $0.int(0) } ?? 0
                }
                var tokens = try bound.map { $0 + (previousOwner == token.uid ? 0 : 1) } ?? count()
                var pruned: [String] = []
                if maxPerUser >= 0, tokens > maxPerUser {
                    tokens = try count()
                    if tokens > maxPerUser {
                        // The oldest, through the (app_id, uid, seq) index.
                        pruned = try connection.query(
                            """
                            DELETE FROM push_tokens WHERE app_id = $1 AND token IN (
                                SELECT token FROM push_tokens WHERE app_id = $1 AND uid = $2 ORDER BY seq LIMIT $3)
                            RETURNING token
                            """,
                            user + [.int(tokens - Int64(maxPerUser))]
                        ).map { $0.text(0) }
                        tokens = Int64(maxPerUser)
                    }
                }
                if tokens != bound {
                    try connection.query("UPDATE users SET tokens_at_most = $1 WHERE app_id = $2 AND uid = $3", [.int(tokens)] + user)
                }
                guard let stored, !pruned.contains(token.token) else { throw StoreError.notFound }
                return stored
            }
        }
    }

    public func deleteTokens(appId: String, authTokenHash: Data) throws -> Int {
        try withConnection {
            try $0.query("DELETE FROM push_tokens WHERE app_id = $1 AND auth_token_hash = $2", [.text(appId), .bytea(authTokenHash)])
                .affected
        }
    }

    public func deleteToken(appId: String, token: String) throws -> Bool {
        try withConnection {
            try $0.query("DELETE FROM push_tokens WHERE app_id = $1 AND token = $2", [.text(appId), .text(token)]).affected > 0
        }
    }

    public func tokens(appId: String, uid: String?) throws -> [PushTokenRecord] {
        try withConnection { connection in
            if let uid {
                return try connection.query(
                    "SELECT \(Self.tokenColumnList) FROM push_tokens WHERE app_id = $1 AND uid = $2 ORDER BY seq",
                    [.text(appId), .text(uid)]
                ).map(Self.tokenRow)
            }
            return try connection.query("SELECT \(Self.tokenColumnList) FROM push_tokens WHERE app_id = $1 ORDER BY seq", [.text(appId)])
                .map(Self.tokenRow)
        }
    }

    /// The token's `updated_at`, read through the primary key.
    public func tokenRegisteredAt(appId: String, token: String) throws -> Date? {
        try withConnection {
            try $0.query("SELECT updated_at FROM push_tokens WHERE app_id = $1 AND token = $2", [.text(appId), .text(token)])
                .first { $0.date(0) }
        }
    }

    /// Stores the APNs environment a send found a token to work in (it and its pending jobs
    /// use it from then on).
    public func recordTokenEnvironment(appId: String, token: String, environment: TokenEnvironment) throws {
        try withConnection { connection in
            try connection.transaction {
                try connection.query(
                    "UPDATE push_tokens SET environment = $1 WHERE app_id = $2 AND token = $3",
                    [.text(environment.rawValue), .text(appId), .text(token)])
                // The jobs waiting in the queue (not the leased ones), found through it.
                try connection.query(
                    """
                    UPDATE push_jobs j SET environment = $1 FROM push_queue q
                    WHERE q.id = j.id AND q.lane <> \(PostgresMigrations.leasedLane) AND j.app_id = $2 AND j.token = $3
                        AND j.environment IS NULL
                    """,
                    [.text(environment.rawValue), .text(appId), .text(token)])
            }
        }
    }

    static let tokenColumnList = """
        app_id, uid, token, platform, provider_id, timezone, auth_token_hash, auth_token_hint, created_at, updated_at, environment,
            encryption_p256dh, encryption_auth, languages
        """

    static func tokenRow(_ row: PGRow) -> PushTokenRecord {
        SQLiteStore.tokenRow(row)
    }

    public func encryptionKeys(appId: String, tokens: [String]) throws -> [String: StoredEncryptionKeys] {
        guard !tokens.isEmpty else { return [:] }
        // One statement whatever the number of tokens, each found through the primary key.
        let rows = try withConnection {
            try $0.query(
                """
                SELECT token, encryption_p256dh, encryption_auth FROM push_tokens
                WHERE app_id = $1 AND token = ANY($2::text[]) AND encryption_p256dh IS NOT NULL AND encryption_auth IS NOT NULL
                """,
                [.text(appId), .textArray(tokens)]
            ).map { ($0.text(0), StoredEncryptionKeys(p256dh: $0.blob(1), sealedAuth: $0.blob(2))) }
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }
}
