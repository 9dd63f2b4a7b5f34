#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

extension SQLiteStore {
    public func registerToken(_ token: PushTokenRecord, maxPerUser: Int) throws -> PushTokenRecord {
        try withConnection { connection in
            try connection.transaction {
                let seq = try connection.query(Registration.nextSeq) { $0.int(0) }.first ?? 1
                let user: [SQLValue] = [.text(token.appId), .text(token.uid)]
                let previousOwner = try connection.query(Registration.owner, [.text(token.appId), .text(token.token)]) {
                    $0.text(0)
                }.first
                let bound = try connection.query(Registration.bound, user) { $0.optionalText(0) == nil ? nil : $0.int(0) }.first ?? nil
                try connection.run(
                    Registration.upsert,
                    [
                        .text(token.appId), .text(token.token), .text(token.uid), .text(token.platform.rawValue), .text(token.providerId),
                        .optionalText(token.timezone), .blob(token.authTokenHash), .text(token.authTokenHint),
                        .date(token.createdAt), .date(token.updatedAt), .int(seq), .optionalText(token.environment?.rawValue),
                        token.encryption.map { .blob($0.p256dh) } ?? .null, token.encryption.map { .blob($0.sealedAuth) } ?? .null,
                        .optionalText(token.storedLanguages),
                    ])
                // How many tokens the user has now, at most: the bound kept on the user, one more
                // when the token is new to them; counted (through the user's index) only when not
                // known or over the limit.
                let count = { try connection.query(Registration.count, user) { $0.int(0) }.first ?? 0 }
                var tokens = try bound.map { $0 + (previousOwner == token.uid ? 0 : 1) } ?? count()
                if maxPerUser >= 0, tokens > maxPerUser {
                    tokens = try count()
                    if tokens > maxPerUser {
                        try connection.run(Registration.trim, user + [.int(tokens - Int64(maxPerUser))])
                        tokens = Int64(maxPerUser)
                    }
                }
                if tokens != bound { try connection.run(Registration.setBound, [.int(tokens)] + user) }
                let stored = try connection.query(Registration.stored, [.text(token.appId), .text(token.token)], Self.tokenRow)
                guard let record = stored.first else { throw StoreError.notFound }
                return record
            }
        }
    }

    /// The statements of a registration, each O(log n) in the number of tokens stored (an index
    /// lookup or a range of one user's index), except `count` and `trim`, which read the
    /// user's tokens and run only when the user's bound is unknown or over the limit.
    public enum Registration {
        /// The next registration number: the largest, through `push_tokens_seq`, plus one.
        public static let nextSeq = "SELECT COALESCE(MAX(seq), 0) + 1 FROM push_tokens"
        /// Who has the token now.
        public static let owner = "SELECT uid FROM push_tokens WHERE app_id = ? AND token = ?"
        /// The user's bound of their token count (NULL: not known).
        public static let bound = "SELECT tokens_at_most FROM users WHERE app_id = ? AND uid = ?"
        /// The token, inserted or updated (and moved to the user). Its encryption keys and
        /// languages are replaced: a registration without them clears them (the device no
        /// longer has them).
        public static let upsert = """
            INSERT INTO push_tokens (app_id, token, uid, platform, provider_id, timezone, auth_token_hash,
                auth_token_hint, created_at, updated_at, seq, environment, encryption_p256dh, encryption_auth, languages)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_id, token) DO UPDATE SET uid = excluded.uid, platform = excluded.platform,
                provider_id = excluded.provider_id, timezone = excluded.timezone,
                auth_token_hash = excluded.auth_token_hash, auth_token_hint = excluded.auth_token_hint,
                updated_at = excluded.updated_at, seq = excluded.seq,
                environment = COALESCE(excluded.environment, push_tokens.environment),
                encryption_p256dh = excluded.encryption_p256dh, encryption_auth = excluded.encryption_auth,
                languages = excluded.languages
            """
        /// The user's tokens, counted through `push_tokens_user`.
        public static let count = "SELECT COUNT(*) FROM push_tokens WHERE app_id = ? AND uid = ?"
        /// Deletes the user's oldest tokens (the last parameter: how many), found through `push_tokens_user`.
        public static let trim = """
            DELETE FROM push_tokens WHERE rowid IN (
                SELECT rowid FROM push_tokens WHERE app_id = ? AND uid = ? ORDER BY seq LIMIT ?)
            """
        /// Stores the user's bound.
        public static let setBound = "UPDATE users SET tokens_at_most = ? WHERE app_id = ? AND uid = ?"
        /// The token as stored.
        public static let stored = tokenColumns + " WHERE app_id = ? AND token = ?"
        /// Every statement, for ``SQLiteStore/queryPlan(_:)``.
        public static let all = [nextSeq, owner, bound, upsert, count, trim, setBound, stored]
    }

    /// The query plan SQLite chooses for `sql` (`EXPLAIN QUERY PLAN`, its parameters unbound):
    /// one line per step, such as `SEARCH push_tokens USING INDEX push_tokens_user (app_id=? AND uid=?)`
    /// or, for a read of the whole table, `SCAN push_tokens`.
    public func queryPlan(_ sql: String) throws -> [String] {
        try withConnection { try $0.query("EXPLAIN QUERY PLAN " + sql) { $0.text(3) } }
    }

    /// How many virtual-machine steps SQLite takes to run `sql` with `values`
    /// (`SQLITE_STMTSTATUS_VM_STEP`), in a transaction that is rolled back: nothing changes. A
    /// statement that walks a table or an index takes steps in proportion to its rows; one
    /// that seeks a few rows through an index takes as many steps however large the table is
    /// (the B-tree descent happens inside a step).
    public func virtualMachineSteps(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try withConnection { connection in
            try connection.execute("BEGIN IMMEDIATE")
            defer { try? connection.execute("ROLLBACK") }
            let statement = try connection.prepare(sql, values.map(SQLValue.init))
            _ = statement.takeVirtualMachineSteps()
            while try statement.step() {}
            return statement.takeVirtualMachineSteps()
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

    /// The token's `updated_at` (``tokenRegisteredAtQuery``, through the primary key).
    public func tokenRegisteredAt(appId: String, token: String) throws -> Date? {
        try withConnection { try $0.query(Self.tokenRegisteredAtQuery, [.text(appId), .text(token)]) { $0.date(0) }.first }
    }

    /// The statement of ``tokenRegisteredAt(appId:token:)``: one token's `updated_at` by its
    /// primary key (its parameters: the app, the token).
    public static let tokenRegisteredAtQuery = "SELECT updated_at FROM push_tokens WHERE app_id = ? AND token = ?"

    /// The columns of a ``PushTokenRecord``, in ``tokenRow(_:)``'s order.
    public static let tokenColumns = """
        SELECT app_id, uid, token, platform, provider_id, timezone, auth_token_hash, auth_token_hint, created_at, updated_at,
            environment, encryption_p256dh, encryption_auth, languages
        FROM push_tokens
        """

    /// A token from its row, its columns as ``tokenColumns`` lists them (both stores select them so).
    static func tokenRow(_ row: some StoredRow) -> PushTokenRecord {
        PushTokenRecord(
            appId: row.text(0), uid: row.text(1), token: row.text(2), platform: TokenPlatform(rawValue: row.text(3)) ?? .apnsDevice,
            providerId: row.text(4), timezone: row.optionalText(5), authTokenHash: row.blob(6), authTokenHint: row.text(7),
            createdAt: row.date(8), updatedAt: row.date(9), environment: row.optionalText(10).flatMap(TokenEnvironment.init(rawValue:)),
            encryption: storedKeys(p256dh: row.optionalBlob(11), sealedAuth: row.optionalBlob(12)),
            languages: PushTokenRecord.languages(storedText: row.optionalText(13)))
    }

    /// A token's keys from its two columns: both set, or none.
    static func storedKeys(p256dh: Data?, sealedAuth: Data?) -> StoredEncryptionKeys? {
        guard let p256dh, let sealedAuth else { return nil }
        return StoredEncryptionKeys(p256dh: p256dh, sealedAuth: sealedAuth)
    }

    public func encryptionKeys(appId: String, tokens: [String]) throws -> [String: StoredEncryptionKeys] {
        guard !tokens.isEmpty else { return [:] }
        // One statement whatever the number of tokens: the list travels as one JSON array
        // (no limit on bound parameters), each token found through the primary key.
        let list = String(decoding: try JSONCodec.encodeData(tokens), as: UTF8.self)
        return try withConnection { connection in
            let rows = try connection.query(
                """
                SELECT token, encryption_p256dh, encryption_auth FROM push_tokens
                WHERE app_id = ? AND token IN (SELECT value FROM json_each(?))
                    AND encryption_p256dh IS NOT NULL AND encryption_auth IS NOT NULL
                """,
                [.text(appId), .text(list)]
            ) { ($0.text(0), StoredEncryptionKeys(p256dh: $0.blob(1), sealedAuth: $0.blob(2))) }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
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
