/// PostgreSQL schema versions, applied in order; each runs once in its own transaction under
/// an advisory lock of the schema, so instances starting together migrate one at a time.
/// Never edit a shipped migration: add a new one.
///
/// Version N here is SQLite's migration N (``Migrations``) in PostgreSQL: the same tables
/// and columns, times as `BIGINT` milliseconds since 1970, binary as `BYTEA`, text compared
/// byte by byte (`COLLATE "C"`, as SQLite does). The claim indexes are partial (only the jobs
/// still to do), so finished jobs, kept for the retention period, cost the claims nothing.
enum PostgresMigrations {
    static let all: [String] = [
        // 1: initial schema
        """
        CREATE TABLE apps (
            id TEXT COLLATE "C" PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, webhook_url TEXT COLLATE "C", webhook_secret BYTEA,
            created_at BIGINT NOT NULL);
        CREATE TABLE users (
            app_id TEXT COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE, uid TEXT COLLATE "C" NOT NULL,
            name TEXT COLLATE "C" NOT NULL, avatar TEXT COLLATE "C", created_at BIGINT NOT NULL, PRIMARY KEY (app_id, uid));
        CREATE TABLE auth_tokens (
            hash BYTEA PRIMARY KEY, app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, hint TEXT COLLATE "C" NOT NULL,
            created_at BIGINT NOT NULL,
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE INDEX auth_tokens_user ON auth_tokens(app_id, uid);
        CREATE TABLE providers (
            app_id TEXT COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE, id TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL, settings BYTEA NOT NULL, secret BYTEA NOT NULL,
            created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, id));
        CREATE TABLE push_tokens (
            app_id TEXT COLLATE "C" NOT NULL, token TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL,
            platform TEXT COLLATE "C" NOT NULL, provider_id TEXT COLLATE "C" NOT NULL, timezone TEXT COLLATE "C",
            auth_token_hash BYTEA NOT NULL, auth_token_hint TEXT COLLATE "C" NOT NULL, created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL, seq BIGINT NOT NULL, PRIMARY KEY (app_id, token),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE INDEX push_tokens_user ON push_tokens(app_id, uid, seq);
        CREATE INDEX push_tokens_auth ON push_tokens(auth_token_hash);
        -- Registration order (SQLite takes MAX(seq) + 1 inside its one writer; here concurrent
        -- registrations each need their own number).
        CREATE SEQUENCE push_tokens_seq;
        CREATE TABLE idempotency (
            app_id TEXT COLLATE "C" NOT NULL, key TEXT COLLATE "C" NOT NULL, request_hash BYTEA NOT NULL, response BYTEA NOT NULL,
            created_at BIGINT NOT NULL, PRIMARY KEY (app_id, key));
        CREATE TABLE push_jobs (
            id TEXT COLLATE "C" PRIMARY KEY, app_id TEXT COLLATE "C" NOT NULL, request_id TEXT COLLATE "C" NOT NULL,
            uid TEXT COLLATE "C" NOT NULL, token TEXT COLLATE "C" NOT NULL, platform TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL, provider_id TEXT COLLATE "C" NOT NULL,
            payload BYTEA NOT NULL, push_type TEXT COLLATE "C" NOT NULL, priority BIGINT NOT NULL,
            expiration BIGINT NOT NULL, collapse_id TEXT COLLATE "C", topic_suffix TEXT COLLATE "C" NOT NULL,
            state TEXT COLLATE "C" NOT NULL, attempts BIGINT NOT NULL, not_before BIGINT NOT NULL,
            lease_until BIGINT, last_error TEXT COLLATE "C", created_at BIGINT NOT NULL, finished_at BIGINT);
        CREATE INDEX push_jobs_pending ON push_jobs(not_before) WHERE state = 'pending';
        CREATE INDEX push_jobs_leased ON push_jobs(lease_until) WHERE state = 'leased';
        CREATE INDEX push_jobs_request ON push_jobs(request_id);
        CREATE TABLE webhook_jobs (
            id TEXT COLLATE "C" PRIMARY KEY, app_id TEXT COLLATE "C" NOT NULL, event TEXT COLLATE "C" NOT NULL, body BYTEA NOT NULL,
            state TEXT COLLATE "C" NOT NULL, attempts BIGINT NOT NULL, not_before BIGINT NOT NULL,
            lease_until BIGINT, last_error TEXT COLLATE "C", created_at BIGINT NOT NULL, finished_at BIGINT);
        CREATE INDEX webhook_jobs_pending ON webhook_jobs(not_before, created_at) WHERE state = 'pending';
        CREATE INDEX webhook_jobs_leased ON webhook_jobs(lease_until) WHERE state = 'leased';
        CREATE TABLE calls (
            app_id TEXT COLLATE "C" NOT NULL, session_id TEXT COLLATE "C" NOT NULL, caller_uid TEXT COLLATE "C" NOT NULL,
            details BYTEA NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (app_id, session_id));
        """,
        // 2: the delivery engine claims due call pushes first (they jump the queue).
        """
        CREATE INDEX push_jobs_pending_calls ON push_jobs(not_before) WHERE state = 'pending' AND kind = 'call';
        """,
        // 3: which store holds a lease (see PostgresStore.releaseAbandonedLeases); the APNs
        // environment a token was registered for or found to work in.
        """
        ALTER TABLE push_jobs ADD COLUMN lease_owner TEXT COLLATE "C";
        ALTER TABLE webhook_jobs ADD COLUMN lease_owner TEXT COLLATE "C";
        ALTER TABLE push_tokens ADD COLUMN environment TEXT COLLATE "C";
        ALTER TABLE push_jobs ADD COLUMN environment TEXT COLLATE "C";
        """,
        // 4: the APNs provider token every instance on the store shares (sealed).
        """
        CREATE TABLE provider_tokens (
            team_id TEXT COLLATE "C" NOT NULL, key_id TEXT COLLATE "C" NOT NULL, sealed BYTEA NOT NULL, issued_at BIGINT NOT NULL,
            PRIMARY KEY (team_id, key_id));
        """,
        // 5: notification preferences (quiet hours, mutes, group levels) and, on each push job,
        // the preference rule that changed or skipped it (skipped jobs have state `skipped`).
        """
        CREATE TABLE push_preferences (
            app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, quiet_start BIGINT, quiet_end BIGINT,
            quiet_include_calls BIGINT NOT NULL, timezone TEXT COLLATE "C", updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, uid),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE TABLE push_mutes (
            app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, receiver_type TEXT COLLATE "C" NOT NULL,
            receiver TEXT COLLATE "C" NOT NULL, until BIGINT, created_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, uid, receiver_type, receiver),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE TABLE push_group_levels (
            app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, guid TEXT COLLATE "C" NOT NULL,
            level TEXT COLLATE "C" NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, uid, guid),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        ALTER TABLE push_jobs ADD COLUMN rule TEXT COLLATE "C";
        """,
        // 6: push events of the trace.
        """
        CREATE TABLE push_events (
            app_id TEXT COLLATE "C" NOT NULL, push_id TEXT COLLATE "C" NOT NULL, request_id TEXT COLLATE "C" NOT NULL,
            step TEXT COLLATE "C" NOT NULL, at BIGINT NOT NULL, detail TEXT COLLATE "C", PRIMARY KEY (app_id, push_id, step));
        CREATE INDEX push_events_request ON push_events(app_id, request_id);
        """,
        // 7: the queue of push jobs still to do, and their leases, in a narrow table of its own
        // (see PostgresStore+Outbox.swift): a claim rewrites a short queue row instead of the
        // job row, a delivered job's row is rewritten once (HOT: no index of push_jobs covers
        // what a finish changes, and fillfactor leaves room on the page). Jobs pending or
        // leased now move into the queue with their leases.
        """
        CREATE TABLE push_queue (
            id TEXT COLLATE "C" PRIMARY KEY, lane SMALLINT NOT NULL, due BIGINT NOT NULL, not_before BIGINT NOT NULL,
            attempts BIGINT NOT NULL, lease_owner TEXT COLLATE "C");
        CREATE INDEX push_queue_due ON push_queue(lane, due);
        \(PostgresMigrations.moveActiveJobsToQueue(where: "TRUE").joined(separator: ";\n"));
        DROP INDEX push_jobs_pending;
        DROP INDEX push_jobs_pending_calls;
        DROP INDEX push_jobs_leased;
        ALTER TABLE push_jobs SET (fillfactor = 80);
        CREATE VIEW push_job_rows AS
            SELECT j.id, j.app_id, j.request_id, j.uid, j.token, j.platform, j.kind, j.provider_id, j.payload, j.push_type,
                j.priority, j.expiration, j.collapse_id, j.topic_suffix,
                CASE WHEN q.lane = \(PostgresMigrations.leasedLane) THEN 'leased' ELSE j.state END AS state,
                COALESCE(q.attempts, j.attempts) AS attempts, j.not_before,
                CASE WHEN q.lane = \(PostgresMigrations.leasedLane) THEN q.due END AS lease_until, j.last_error, j.created_at,
                j.finished_at, CASE WHEN q.id IS NULL THEN j.lease_owner ELSE q.lease_owner END AS lease_owner, j.environment, j.rule
            FROM push_jobs j LEFT JOIN push_queue q ON q.id = j.id;
        """,
        // 8: retention (`--retention-days`): the purge finds what is older than its cutoff on
        // these indexes. `created_at`, not `finished_at`: a finish never changes an indexed
        // column of `push_jobs`, so it stays a HOT update.
        """
        CREATE INDEX push_jobs_created ON push_jobs(created_at);
        CREATE INDEX webhook_jobs_created ON webhook_jobs(created_at);
        CREATE INDEX push_events_at ON push_events(at);
        CREATE INDEX idempotency_created ON idempotency(created_at);
        CREATE INDEX calls_created ON calls(created_at);
        """,
        // 9: who may answer a call (its recipients) and who did (`PUT /calls/{sessionId}`):
        // uids framed by newlines (CallRecord.encode(uids:)).
        """
        ALTER TABLE calls ADD COLUMN recipients TEXT COLLATE "C";
        ALTER TABLE calls ADD COLUMN answered TEXT COLLATE "C";
        """,
        // 10: what the providers' circuit breakers keep across restarts: when each token first
        // delivered, and when the provider last delivered (an update clears it).
        """
        ALTER TABLE push_tokens ADD COLUMN delivered_at BIGINT;
        ALTER TABLE providers ADD COLUMN last_delivered_at BIGINT;
        """,
        // 11: each app's default APNs and FCM provider, set to the one tokens registered without
        // a `providerId` used until now (the app's first provider of the kind by id, byte order);
        // each user's upper bound of their token count, kept by registrations (NULL: not known).
        // (`seq` comes from its sequence here: nothing to index for the next number.)
        """
        ALTER TABLE apps ADD COLUMN default_apns_provider_id TEXT COLLATE "C";
        ALTER TABLE apps ADD COLUMN default_fcm_provider_id TEXT COLLATE "C";
        UPDATE apps SET
            default_apns_provider_id = (SELECT MIN(id) FROM providers WHERE providers.app_id = apps.id AND kind = 'apns'),
            default_fcm_provider_id = (SELECT MIN(id) FROM providers WHERE providers.app_id = apps.id AND kind = 'fcm');
        ALTER TABLE users ADD COLUMN tokens_at_most BIGINT;
        """,
        // 12: edits, deletions and revocations (issue 27): SQLite's 12. Positions of the changes
        // feed come from a sequence, taken under the transaction-scoped advisory lock
        // ``PostgresStore/changesLock`` so that they are in commit order (a reader never sees a
        // later position before an earlier one). `collapse_id` never changes: a finish stays HOT.
        """
        CREATE INDEX push_jobs_message ON push_jobs(app_id, collapse_id) WHERE kind = 'chat';
        CREATE SEQUENCE push_changes_seq;
        CREATE TABLE push_changes (
            seq BIGINT PRIMARY KEY, app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, kind TEXT COLLATE "C" NOT NULL,
            conversation_id TEXT COLLATE "C" NOT NULL, message_id TEXT COLLATE "C", notification_id TEXT COLLATE "C",
            title TEXT COLLATE "C", body TEXT COLLATE "C", unread_count BIGINT, at BIGINT NOT NULL, created_at BIGINT NOT NULL,
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE INDEX push_changes_user ON push_changes(app_id, uid, seq);
        CREATE INDEX push_changes_created ON push_changes(created_at);
        ALTER TABLE users ADD COLUMN changes_purged_through BIGINT;
        CREATE TABLE revoked_push_tokens (
            app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, token TEXT COLLATE "C" NOT NULL,
            platform TEXT COLLATE "C" NOT NULL, provider_id TEXT COLLATE "C" NOT NULL, environment TEXT COLLATE "C",
            revoked_at BIGINT NOT NULL, PRIMARY KEY (app_id, uid, token),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE INDEX revoked_push_tokens_at ON revoked_push_tokens(revoked_at);
        """,
        // 13: private push (issue 28): SQLite's 13. The view of job rows gets the two new job
        // columns (at its end, as `CREATE OR REPLACE VIEW` requires).
        """
        ALTER TABLE apps ADD COLUMN privacy TEXT COLLATE "C" NOT NULL DEFAULT 'standard';
        ALTER TABLE apps ADD COLUMN private_placeholder TEXT COLLATE "C";
        ALTER TABLE apps ADD COLUMN private_call_placeholder TEXT COLLATE "C";
        ALTER TABLE push_tokens ADD COLUMN encryption_p256dh BYTEA;
        ALTER TABLE push_tokens ADD COLUMN encryption_auth BYTEA;
        ALTER TABLE push_jobs ADD COLUMN private_plaintext BYTEA;
        ALTER TABLE push_jobs ADD COLUMN trimmed TEXT COLLATE "C";
        CREATE OR REPLACE VIEW push_job_rows AS
            SELECT j.id, j.app_id, j.request_id, j.uid, j.token, j.platform, j.kind, j.provider_id, j.payload, j.push_type,
                j.priority, j.expiration, j.collapse_id, j.topic_suffix,
                CASE WHEN q.lane = \(PostgresMigrations.leasedLane) THEN 'leased' ELSE j.state END AS state,
                COALESCE(q.attempts, j.attempts) AS attempts, j.not_before,
                CASE WHEN q.lane = \(PostgresMigrations.leasedLane) THEN q.due END AS lease_until, j.last_error, j.created_at,
                j.finished_at, CASE WHEN q.id IS NULL THEN j.lease_owner ELSE q.lease_owner END AS lease_owner, j.environment, j.rule,
                j.private_plaintext, j.trimmed
            FROM push_jobs j LEFT JOIN push_queue q ON q.id = j.id;
        """,
        // 14: urgency (issue 30): SQLite's 14; the view of job rows gets the two new job columns
        // at its end.
        """
        ALTER TABLE apps ADD COLUMN delivery_policy TEXT COLLATE "C";
        ALTER TABLE push_jobs ADD COLUMN interruption_level TEXT COLLATE "C";
        ALTER TABLE push_jobs ADD COLUMN level_reason TEXT COLLATE "C";
        CREATE OR REPLACE VIEW push_job_rows AS
            SELECT j.id, j.app_id, j.request_id, j.uid, j.token, j.platform, j.kind, j.provider_id, j.payload, j.push_type,
                j.priority, j.expiration, j.collapse_id, j.topic_suffix,
                CASE WHEN q.lane = \(PostgresMigrations.leasedLane) THEN 'leased' ELSE j.state END AS state,
                COALESCE(q.attempts, j.attempts) AS attempts, j.not_before,
                CASE WHEN q.lane = \(PostgresMigrations.leasedLane) THEN q.due END AS lease_until, j.last_error, j.created_at,
                j.finished_at, CASE WHEN q.id IS NULL THEN j.lease_owner ELSE q.lease_owner END AS lease_owner, j.environment, j.rule,
                j.private_plaintext, j.trimmed, j.interruption_level, j.level_reason
            FROM push_jobs j LEFT JOIN push_queue q ON q.id = j.id;
        """,
        // 15: nothing. SQLite's 15 adds an index on leased jobs' lease ends for the claim, which
        // PostgreSQL's queue lanes already serve; the numbers stay the same in both stores.
        """
        SELECT 1;
        """,
        // 16: the badge the service counts (issue 30): SQLite's 16. A user's changes are
        // serialized by a transaction-scoped advisory lock (``PostgresStore/lockUnread(_:appId:uids:)``).
        """
        ALTER TABLE apps ADD COLUMN badge TEXT COLLATE "C" NOT NULL DEFAULT 'caller';
        CREATE TABLE unread_messages (
            app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, conversation_id TEXT COLLATE "C" NOT NULL,
            message_id TEXT COLLATE "C" NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (app_id, uid, conversation_id, message_id),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        """,
        // 17: languages and the badge's read marks (issue 30): SQLite's 17.
        """
        ALTER TABLE push_tokens ADD COLUMN languages TEXT COLLATE "C";
        ALTER TABLE apps ADD COLUMN localization TEXT COLLATE "C";
        ALTER TABLE unread_messages ADD COLUMN read_at BIGINT;
        CREATE INDEX unread_messages_read ON unread_messages(read_at) WHERE read_at IS NOT NULL;
        """,
        // 18: a user's pushes (issue 31): SQLite's 18.
        """
        CREATE INDEX push_jobs_user ON push_jobs(app_id, uid, created_at);
        """,
        // 19: quiet when already reading (issue 31): SQLite's 19.
        """
        ALTER TABLE apps ADD COLUMN hold_seconds INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE user_activity (
            app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, source TEXT COLLATE "C" NOT NULL,
            conversation_id TEXT COLLATE "C" NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (app_id, uid, source),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE TABLE held_pushes (
            app_id TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL, conversation_id TEXT COLLATE "C" NOT NULL,
            job_id TEXT COLLATE "C" NOT NULL, until BIGINT NOT NULL, PRIMARY KEY (app_id, uid, conversation_id, job_id),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        """,
        // 20: group membership (issue 31, part 1): SQLite's 20. Members need not be users (no
        // foreign key to `users`); a user's deletion removes their memberships.
        """
        CREATE TABLE push_groups (
            app_id TEXT COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE, guid TEXT COLLATE "C" NOT NULL,
            created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, guid));
        CREATE TABLE push_group_members (
            app_id TEXT COLLATE "C" NOT NULL, guid TEXT COLLATE "C" NOT NULL, uid TEXT COLLATE "C" NOT NULL,
            added_at BIGINT NOT NULL, PRIMARY KEY (app_id, guid, uid),
            FOREIGN KEY (app_id, guid) REFERENCES push_groups(app_id, guid) ON DELETE CASCADE);
        CREATE INDEX push_group_members_user ON push_group_members(app_id, uid);
        """,
        // 21: sends to a whole group expanded in the background (issue 31, part 1): SQLite's 21.
        // A send's lease holder is a store's lease owner, whose advisory lock says whether it
        // still runs (as for the outbox's leases).
        """
        CREATE TABLE push_group_sends (
            id TEXT COLLATE "C" PRIMARY KEY, app_id TEXT COLLATE "C" NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
            guid TEXT COLLATE "C" NOT NULL, request BYTEA NOT NULL, members BIGINT NOT NULL, done BIGINT NOT NULL,
            jobs BIGINT NOT NULL, cursor TEXT COLLATE "C", state TEXT COLLATE "C" NOT NULL, lease_owner TEXT COLLATE "C",
            lease_until BIGINT, created_at BIGINT NOT NULL, finished_at BIGINT, last_error TEXT COLLATE "C");
        CREATE INDEX push_group_sends_expanding ON push_group_sends(created_at) WHERE state = 'expanding';
        CREATE INDEX push_group_sends_finished ON push_group_sends(finished_at);
        CREATE TABLE push_group_send_members (
            send_id TEXT COLLATE "C" NOT NULL REFERENCES push_group_sends(id) ON DELETE CASCADE, uid TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (send_id, uid));
        """,
        // 22: room for a finish to rewrite every job row of a page in place (issue 32). Version 7
        // meant a delivered job's rewrite to be a HOT update (no index of push_jobs covers what a
        // finish changes), but the rows have grown since (private push's plaintext, the trace's
        // columns): at fillfactor 80 most rewrites found no room on their page and went to
        // another, adding an entry to each of push_jobs' five indexes (6.4 WAL records per
        // finished job; 2.1 at 45, measured with pg_stat_statements). 45 % leaves each row the
        // room of one more version of itself. A token's first delivery (delivered_at) and its
        // registrations' updates likewise stay on their page at 70. Only pages written from now
        // on are filled less; the tables are not rewritten.
        """
        ALTER TABLE push_jobs SET (fillfactor = 45);
        ALTER TABLE push_tokens SET (fillfactor = 70);
        """,
    ]

    /// The queue's lanes: due calls (claimed first), other due jobs, leased jobs (claimable
    /// again when `due`, their lease's end, has passed).
    static let callLane = 0
    static let otherLane = 1
    static let leasedLane = 2

    /// SQL that gives the pending and leased rows of `push_jobs` matching `condition` their
    /// queue rows (a leased one keeps its lease), and leaves their job rows `pending` with no
    /// lease end: from version 7 on, the queue row alone says whether a job is leased and who
    /// last leased it (`lease_owner`, kept after a finish as it always was; the job row gets it
    /// back when the job leaves the queue). Migration 7 runs it: change it only in ways right
    /// for both.
    /// Two statements (run them in one transaction).
    static func moveActiveJobsToQueue(where condition: String) -> [String] {
        [
            """
            INSERT INTO push_queue (id, lane, due, not_before, attempts, lease_owner)
            SELECT id, CASE WHEN state = 'leased' THEN \(leasedLane) WHEN kind = 'call' THEN \(callLane) ELSE \(otherLane) END,
                CASE WHEN state = 'leased' THEN COALESCE(lease_until, 0) ELSE not_before END, not_before, attempts, lease_owner
            FROM push_jobs WHERE state IN ('pending', 'leased') AND (\(condition))
            """,
            "UPDATE push_jobs SET state = 'pending', lease_until = NULL WHERE state = 'leased' AND (\(condition))",
        ]
    }
}
