/// Schema versions, applied in order; each runs once in its own transaction.
/// Never edit a shipped migration: add a new one.
enum Migrations {
    static let all: [String] = [
        // 1: initial schema
        """
        CREATE TABLE apps (
            id TEXT PRIMARY KEY, name TEXT NOT NULL, webhook_url TEXT, webhook_secret BLOB,
            created_at INTEGER NOT NULL);
        CREATE TABLE users (
            app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, uid TEXT NOT NULL,
            name TEXT NOT NULL, avatar TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (app_id, uid));
        CREATE TABLE auth_tokens (
            hash BLOB PRIMARY KEY, app_id TEXT NOT NULL, uid TEXT NOT NULL, hint TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE INDEX auth_tokens_user ON auth_tokens(app_id, uid);
        CREATE TABLE providers (
            app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, id TEXT NOT NULL,
            kind TEXT NOT NULL, settings BLOB NOT NULL, secret BLOB NOT NULL,
            created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (app_id, id));
        CREATE TABLE push_tokens (
            app_id TEXT NOT NULL, token TEXT NOT NULL, uid TEXT NOT NULL, platform TEXT NOT NULL,
            provider_id TEXT NOT NULL, timezone TEXT, auth_token_hash BLOB NOT NULL,
            auth_token_hint TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
            seq INTEGER NOT NULL, PRIMARY KEY (app_id, token),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE INDEX push_tokens_user ON push_tokens(app_id, uid, seq);
        CREATE INDEX push_tokens_auth ON push_tokens(auth_token_hash);
        CREATE TABLE idempotency (
            app_id TEXT NOT NULL, key TEXT NOT NULL, request_hash BLOB NOT NULL, response BLOB NOT NULL,
            created_at INTEGER NOT NULL, PRIMARY KEY (app_id, key));
        CREATE TABLE push_jobs (
            id TEXT PRIMARY KEY, app_id TEXT NOT NULL, request_id TEXT NOT NULL, uid TEXT NOT NULL,
            token TEXT NOT NULL, platform TEXT NOT NULL, kind TEXT NOT NULL, provider_id TEXT NOT NULL,
            payload BLOB NOT NULL, push_type TEXT NOT NULL, priority INTEGER NOT NULL,
            expiration INTEGER NOT NULL, collapse_id TEXT, topic_suffix TEXT NOT NULL,
            state TEXT NOT NULL, attempts INTEGER NOT NULL, not_before INTEGER NOT NULL,
            lease_until INTEGER, last_error TEXT, created_at INTEGER NOT NULL, finished_at INTEGER);
        CREATE INDEX push_jobs_due ON push_jobs(state, not_before);
        CREATE TABLE webhook_jobs (
            id TEXT PRIMARY KEY, app_id TEXT NOT NULL, event TEXT NOT NULL, body BLOB NOT NULL,
            state TEXT NOT NULL, attempts INTEGER NOT NULL, not_before INTEGER NOT NULL,
            lease_until INTEGER, last_error TEXT, created_at INTEGER NOT NULL, finished_at INTEGER);
        CREATE INDEX webhook_jobs_due ON webhook_jobs(state, not_before);
        CREATE TABLE calls (
            app_id TEXT NOT NULL, session_id TEXT NOT NULL, caller_uid TEXT NOT NULL,
            details BLOB NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (app_id, session_id));
        """,
        // 2: the delivery engine claims due call pushes first (they jump the queue).
        """
        CREATE INDEX push_jobs_kind_due ON push_jobs(state, kind, not_before);
        """,
        // 3: which process holds a lease (a restarted service takes over its predecessor's at
        // once); the APNs environment a token was registered for or found to work in.
        """
        ALTER TABLE push_jobs ADD COLUMN lease_owner TEXT;
        ALTER TABLE webhook_jobs ADD COLUMN lease_owner TEXT;
        ALTER TABLE push_tokens ADD COLUMN environment TEXT;
        ALTER TABLE push_jobs ADD COLUMN environment TEXT;
        """,
        // 4: the APNs provider token every instance on the store shares (sealed).
        """
        CREATE TABLE provider_tokens (
            team_id TEXT NOT NULL, key_id TEXT NOT NULL, sealed BLOB NOT NULL, issued_at INTEGER NOT NULL,
            PRIMARY KEY (team_id, key_id));
        """,
        // 5: notification preferences (quiet hours, mutes, group levels) and, on each push job,
        // the preference rule that changed or skipped it (skipped jobs have state `skipped`).
        """
        CREATE TABLE push_preferences (
            app_id TEXT NOT NULL, uid TEXT NOT NULL, quiet_start INTEGER, quiet_end INTEGER,
            quiet_include_calls INTEGER NOT NULL, timezone TEXT, updated_at INTEGER NOT NULL, PRIMARY KEY (app_id, uid),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE TABLE push_mutes (
            app_id TEXT NOT NULL, uid TEXT NOT NULL, receiver_type TEXT NOT NULL, receiver TEXT NOT NULL,
            until INTEGER, created_at INTEGER NOT NULL, PRIMARY KEY (app_id, uid, receiver_type, receiver),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE TABLE push_group_levels (
            app_id TEXT NOT NULL, uid TEXT NOT NULL, guid TEXT NOT NULL, level TEXT NOT NULL,
            updated_at INTEGER NOT NULL, PRIMARY KEY (app_id, uid, guid),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        ALTER TABLE push_jobs ADD COLUMN rule TEXT;
        """,
        // 6: what happened to a push
        // after the provider took it, as the SDK reports it (delivered, opened, replied), for
        // the trace. One row per push and step: the first report wins.
        """
        CREATE TABLE push_events (
            app_id TEXT NOT NULL, push_id TEXT NOT NULL, request_id TEXT NOT NULL, step TEXT NOT NULL,
            at INTEGER NOT NULL, detail TEXT, PRIMARY KEY (app_id, push_id, step));
        CREATE INDEX push_events_request ON push_events(app_id, request_id);
        CREATE INDEX push_jobs_app_request ON push_jobs(app_id, request_id);
        """,
        // 7: PostgreSQL's `push_queue` (its schema 7); nothing changes here, where a claim
        // rewrites the job row. Kept so that a schema version means the same in both stores.
        """
        SELECT 1;
        """,
        // 8: retention (`--retention-days`): the purge finds what is older than its cutoff on
        // these indexes instead of reading whole tables.
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
        ALTER TABLE calls ADD COLUMN recipients TEXT;
        ALTER TABLE calls ADD COLUMN answered TEXT;
        """,
        // 10: what the providers' circuit breakers keep across restarts: when each token first
        // delivered (a refusal of such a token says something about the provider, one of a
        // token that never delivered does not), and when the provider last delivered (an
        // update clears it: the new settings have not delivered yet).
        """
        ALTER TABLE push_tokens ADD COLUMN delivered_at INTEGER;
        ALTER TABLE providers ADD COLUMN last_delivered_at INTEGER;
        """,
        // 11: each app's default APNs and FCM provider, for tokens registered without a
        // `providerId` (the first provider of a kind becomes it, so adding another never moves
        // where such tokens go), set to the one they used until now: the app's first provider
        // of the kind by id. Registrations in O(log n): `seq` is indexed (the next number was
        // MAX(seq) over the whole table), and each user has an upper bound of their token count
        // that registrations keep (NULL: not known; counted at the user's next registration).
        """
        ALTER TABLE apps ADD COLUMN default_apns_provider_id TEXT;
        ALTER TABLE apps ADD COLUMN default_fcm_provider_id TEXT;
        UPDATE apps SET
            default_apns_provider_id = (SELECT MIN(id) FROM providers WHERE providers.app_id = apps.id AND kind = 'apns'),
            default_fcm_provider_id = (SELECT MIN(id) FROM providers WHERE providers.app_id = apps.id AND kind = 'fcm');
        CREATE INDEX push_tokens_seq ON push_tokens(seq);
        ALTER TABLE users ADD COLUMN tokens_at_most INTEGER;
        """,
        // 12: edits, deletions and revocations (issue 27). The chat jobs of a message are found
        // by their collapse id (`msg-`, `rct-` or `act-` and the hash of the message id). Each
        // user's changes feed: positions (`seq`, never reused: AUTOINCREMENT) in commit order, and
        // on the user the last position the retention purge deleted. The push tokens a revocation
        // deleted, kept for the log and trace of later sends.
        """
        CREATE INDEX push_jobs_message ON push_jobs(app_id, collapse_id) WHERE kind = 'chat';
        CREATE TABLE push_changes (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, app_id TEXT NOT NULL, uid TEXT NOT NULL, kind TEXT NOT NULL,
            conversation_id TEXT NOT NULL, message_id TEXT, notification_id TEXT, title TEXT, body TEXT, unread_count INTEGER,
            at INTEGER NOT NULL, created_at INTEGER NOT NULL,
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE INDEX push_changes_user ON push_changes(app_id, uid, seq);
        CREATE INDEX push_changes_created ON push_changes(created_at);
        ALTER TABLE users ADD COLUMN changes_purged_through INTEGER;
        CREATE TABLE revoked_push_tokens (
            app_id TEXT NOT NULL, uid TEXT NOT NULL, token TEXT NOT NULL, platform TEXT NOT NULL, provider_id TEXT NOT NULL,
            environment TEXT, revoked_at INTEGER NOT NULL, PRIMARY KEY (app_id, uid, token),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE INDEX revoked_push_tokens_at ON revoked_push_tokens(revoked_at);
        """,
        // 13: private push (issue 28). Each app's privacy mode and placeholders; each push
        // token's Web Push keys (the public key in clear, the auth secret sealed by the service;
        // NULL: the device sent none); on each job of a private app the plaintext sealed at send
        // time (NULL for a standard job) and the optional fields removed to fit it (comma-joined,
        // NULL when none were).
        """
        ALTER TABLE apps ADD COLUMN privacy TEXT NOT NULL DEFAULT 'standard';
        ALTER TABLE apps ADD COLUMN private_placeholder TEXT;
        ALTER TABLE apps ADD COLUMN private_call_placeholder TEXT;
        ALTER TABLE push_tokens ADD COLUMN encryption_p256dh BLOB;
        ALTER TABLE push_tokens ADD COLUMN encryption_auth BLOB;
        ALTER TABLE push_jobs ADD COLUMN private_plaintext BLOB;
        ALTER TABLE push_jobs ADD COLUMN trimmed TEXT;
        """,
        // 14: urgency (issue 30). Each app's delivery policy as JSON text (NULL: the defaults);
        // on each job the `interruption-level` it carries and why, for the trace (NULL: none).
        """
        ALTER TABLE apps ADD COLUMN delivery_policy TEXT;
        ALTER TABLE push_jobs ADD COLUMN interruption_level TEXT;
        ALTER TABLE push_jobs ADD COLUMN level_reason TEXT;
        """,
        // 15: the claim's look for jobs whose lease ran out reads only leased jobs by
        // `lease_until` (as PostgreSQL's `push_jobs_leased` does), instead of every leased job's
        // row: with many jobs in flight (a private app's pushes wait for sealing) that scan read
        // thousands of rows per claim.
        """
        CREATE INDEX push_jobs_leased ON push_jobs(lease_until) WHERE state = 'leased';
        """,
        // 16: the badge the service counts (issue 30). Each app's badge default (`caller` or
        // `auto`); one row per message counted unread for a recipient, so that a retried send
        // counts once, a read deletes its conversation's rows and a deletion its message's row.
        // A user's total is a count over the primary key's prefix.
        """
        ALTER TABLE apps ADD COLUMN badge TEXT NOT NULL DEFAULT 'caller';
        CREATE TABLE unread_messages (
            app_id TEXT NOT NULL, uid TEXT NOT NULL, conversation_id TEXT NOT NULL, message_id TEXT NOT NULL,
            created_at INTEGER NOT NULL, PRIMARY KEY (app_id, uid, conversation_id, message_id),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        """,
        // 17: languages (issue 30). Each push token's preferred languages (comma-joined BCP-47
        // tags; NULL: the device sent none); each app's templates and `loc-key` choice as JSON
        // text (NULL: the built-in texts). And the badge's read marks: a read or a deletion
        // marks a counted message's row `read_at` instead of deleting it (a send retried after
        // it must not count the message again); the retention purge deletes marked rows, found
        // through `unread_messages_read`.
        """
        ALTER TABLE push_tokens ADD COLUMN languages TEXT;
        ALTER TABLE apps ADD COLUMN localization TEXT;
        ALTER TABLE unread_messages ADD COLUMN read_at INTEGER;
        CREATE INDEX unread_messages_read ON unread_messages(read_at) WHERE read_at IS NOT NULL;
        """,
        // 18: a user's pushes, newest first (issue 31, "what happened to Alice's push?"): the
        // dashboard finds them by uid without reading the app's other jobs.
        """
        CREATE INDEX push_jobs_user ON push_jobs(app_id, uid, created_at);
        """,
        // 19: quiet when already reading (issue 31). Each app's hold (0: off); each user's
        // activity per source (a device's auth token hash, or the back end) until it expires;
        // the pushes held by it until their hold ends, found by conversation for a read.
        """
        ALTER TABLE apps ADD COLUMN hold_seconds INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE user_activity (
            app_id TEXT NOT NULL, uid TEXT NOT NULL, source TEXT NOT NULL, conversation_id TEXT NOT NULL,
            expires_at INTEGER NOT NULL, PRIMARY KEY (app_id, uid, source),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        CREATE TABLE held_pushes (
            app_id TEXT NOT NULL, uid TEXT NOT NULL, conversation_id TEXT NOT NULL, job_id TEXT NOT NULL, until INTEGER NOT NULL,
            PRIMARY KEY (app_id, uid, conversation_id, job_id),
            FOREIGN KEY (app_id, uid) REFERENCES users(app_id, uid) ON DELETE CASCADE);
        """,
        // 20: group membership (issue 31, part 1; PostgreSQL's 20 is the same). An app's groups
        // and their members, kept by the app's back end through the admin API. A member is a uid
        // that need not be a user of the app yet (no foreign key to `users`): deleting a user
        // removes their memberships (found through `push_group_members_user`), deleting a group
        // or the app its members (ON DELETE CASCADE). The primary key (app, guid, uid) makes
        // "the members after X in uid order" and "is X a member" index lookups.
        """
        CREATE TABLE push_groups (
            app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, guid TEXT NOT NULL,
            created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (app_id, guid));
        CREATE TABLE push_group_members (
            app_id TEXT NOT NULL, guid TEXT NOT NULL, uid TEXT NOT NULL, added_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, guid, uid),
            FOREIGN KEY (app_id, guid) REFERENCES push_groups(app_id, guid) ON DELETE CASCADE);
        CREATE INDEX push_group_members_user ON push_group_members(app_id, uid);
        """,
        // 21: sends to a whole group (issue 31, part 1; PostgreSQL's 21 is the same). A send to
        // a group larger than the inline limit is recorded with the members it was accepted for
        // (taken from the group then, its sender left out) and expanded into jobs in the
        // background, a batch per transaction behind `cursor` (the last member expanded), leased
        // to one store at a time. The members stay until the retention purge deletes a finished
        // send (`push_group_sends_finished`); the claim reads `push_group_sends_expanding`.
        """
        CREATE TABLE push_group_sends (
            id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, guid TEXT NOT NULL,
            request BLOB NOT NULL, members INTEGER NOT NULL, done INTEGER NOT NULL, jobs INTEGER NOT NULL, cursor TEXT,
            state TEXT NOT NULL, lease_owner TEXT, lease_until INTEGER, created_at INTEGER NOT NULL, finished_at INTEGER,
            last_error TEXT);
        CREATE INDEX push_group_sends_expanding ON push_group_sends(created_at) WHERE state = 'expanding';
        CREATE INDEX push_group_sends_finished ON push_group_sends(finished_at);
        CREATE TABLE push_group_send_members (
            send_id TEXT NOT NULL REFERENCES push_group_sends(id) ON DELETE CASCADE, uid TEXT NOT NULL,
            PRIMARY KEY (send_id, uid));
        """,
        // 22: the claim's due jobs through partial indexes that hold only pending jobs (as
        // PostgreSQL's `push_jobs_pending` and `push_jobs_pending_calls` once did), instead of
        // `push_jobs_due (state, not_before)` and `push_jobs_kind_due (state, kind, not_before)`,
        // which held every job: each state change (pending, leased, delivered) deleted and
        // re-inserted a job's entries in both, and finished jobs (kept for `--retention-days`)
        // stayed in them. Now a job is in `push_jobs_pending` (a call also in
        // `push_jobs_pending_calls`) from its accept to its lease or skip only. The other
        // queries that read the old indexes now read the partial ones (the health check's
        // counts, the release of abandoned leases, with their states written out); the admin
        // API's count by state (the dashboard polls it every 3 s) reads those two and
        // `push_jobs_finished`, which a job enters once, when it ends; the rest keep their plans
        // (the primary key, `push_jobs_user`, `push_jobs_app_request`, `push_jobs_created`,
        // `push_jobs_message`).
        """
        CREATE INDEX push_jobs_pending ON push_jobs(not_before) WHERE state = 'pending';
        CREATE INDEX push_jobs_pending_calls ON push_jobs(not_before) WHERE state = 'pending' AND kind = 'call';
        CREATE INDEX push_jobs_finished ON push_jobs(state) WHERE state NOT IN ('pending', 'leased');
        DROP INDEX push_jobs_due;
        DROP INDEX push_jobs_kind_due;
        """,
    ]
}
