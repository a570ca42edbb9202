import SQLite

/// The schema, as an ordered list of migrations. Never edit a migration that has shipped:
/// add the next one.
public enum Schema {
    /// The `user_version` of a store this binary has brought up to date.
    public static var version: Int { migrations.last?.version ?? 0 }

    /// Public for the PostgreSQL schema, which has a text of each, numbered the same
    /// (`PostgresStore`), and for its tests.
    public static let migrations: [Migration] = [
        Migration(version: 1, name: "accounts and keys", sql: """
            CREATE TABLE accounts (
                id TEXT PRIMARY KEY,
                token_hash BLOB NOT NULL UNIQUE,
                created_at INTEGER NOT NULL,
                live_activities INTEGER NOT NULL DEFAULT 1,
                deleted_at INTEGER
            ) STRICT;
            CREATE TABLE keys (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts(id),
                label TEXT NOT NULL,
                secret_hash BLOB NOT NULL UNIQUE,
                prefix TEXT NOT NULL,
                last4 TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER,
                last_client_name TEXT,
                last_client_version TEXT,
                last_host TEXT,
                todo_count INTEGER NOT NULL DEFAULT 0,
                in_progress_count INTEGER NOT NULL DEFAULT 0,
                done_count INTEGER NOT NULL DEFAULT 0,
                cancelled_count INTEGER NOT NULL DEFAULT 0,
                deleted_at INTEGER
            ) STRICT;
            CREATE INDEX keys_by_account ON keys(account_id);
            CREATE INDEX keys_deleted ON keys(deleted_at) WHERE deleted_at IS NOT NULL;
            CREATE INDEX accounts_deleted ON accounts(deleted_at) WHERE deleted_at IS NOT NULL;
            """),
        Migration(version: 2, name: "tasks, questions, inbox, activity, devices", sql: """
            CREATE TABLE tasks (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                title TEXT NOT NULL,
                description TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('todo', 'in_progress', 'done', 'cancelled')),
                priority TEXT NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
                notify INTEGER NOT NULL CHECK (notify IN (0, 1)),
                progress INTEGER CHECK (progress BETWEEN 0 AND 100),
                status_note TEXT,
                source TEXT NOT NULL CHECK (source IN ('agent', 'app')),
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                completed_at INTEGER,
                seen_at INTEGER,
                host TEXT,
                -- The change sequence (`changes.seq`) of the task's creation and of its last
                -- change of updated_at: list cursors see the order as it was when they began.
                created_seq INTEGER NOT NULL,
                changed_seq INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX tasks_by_key ON tasks(key_id, updated_at DESC, id DESC);
            CREATE INDEX tasks_by_account ON tasks(account_id, updated_at DESC, id DESC);
            CREATE INDEX tasks_closed ON tasks(key_id, status, updated_at) WHERE status IN ('done', 'cancelled');

            -- One row: the last change sequence number handed out.
            CREATE TABLE changes (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                seq INTEGER NOT NULL
            ) STRICT;
            INSERT INTO changes (id, seq) VALUES (1, 0);
            -- Where a task stood in the order before a change moved it (its old updated_at),
            -- kept while a list cursor may still need it.
            CREATE TABLE task_moves (
                task_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                old_updated_at INTEGER NOT NULL,
                at INTEGER NOT NULL,
                PRIMARY KEY (task_id, seq)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX task_moves_by_age ON task_moves(at);

            CREATE TABLE questions (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                task_id TEXT,
                prompt TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('confirm', 'choice', 'text')),
                -- The options as a JSON array of strings.
                options TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'expired', 'cancelled')),
                answer TEXT,
                created_at INTEGER NOT NULL,
                answered_at INTEGER,
                expires_at INTEGER NOT NULL,
                closed_at INTEGER
            ) STRICT;
            CREATE INDEX questions_by_key ON questions(key_id, status, created_at DESC);
            CREATE INDEX questions_by_account ON questions(account_id, status, created_at DESC);
            CREATE INDEX questions_pending ON questions(expires_at) WHERE status = 'pending';
            CREATE INDEX questions_by_task ON questions(task_id) WHERE task_id IS NOT NULL;

            CREATE TABLE inbox_items (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('task_assigned', 'task_changed', 'task_deleted', 'answer', 'message')),
                from_key_id TEXT,
                from_label TEXT,
                task_id TEXT,
                question_id TEXT,
                text TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                read_at INTEGER
            ) STRICT;
            CREATE INDEX inbox_by_key ON inbox_items(key_id, created_at, id);
            CREATE INDEX inbox_unread ON inbox_items(key_id, created_at) WHERE read_at IS NULL;

            CREATE TABLE activity (
                id TEXT PRIMARY KEY,
                key_id TEXT NOT NULL,
                at INTEGER NOT NULL,
                surface TEXT NOT NULL CHECK (surface IN ('mcp', 'rest')),
                action TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
                code TEXT,
                message TEXT,
                duration_ms INTEGER NOT NULL,
                client_name TEXT,
                client_version TEXT,
                host TEXT
            ) STRICT;
            CREATE INDEX activity_by_key ON activity(key_id, at DESC, id DESC);
            CREATE INDEX activity_by_age ON activity(at);

            -- The client makes a device's ID (`rest-api.md#device`), so two accounts may
            -- send the same one (the app installed again with a new account): each account
            -- has its own.
            CREATE TABLE devices (
                account_id TEXT NOT NULL,
                id TEXT NOT NULL,
                platform TEXT NOT NULL CHECK (platform IN ('ios', 'ipados', 'watchos')),
                model TEXT NOT NULL,
                os_version TEXT NOT NULL,
                app_version TEXT NOT NULL,
                apns_environment TEXT NOT NULL CHECK (apns_environment IN ('production', 'sandbox')),
                apns_token TEXT,
                push_to_start_token TEXT,
                widget_push_token TEXT,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (account_id, id)
            ) STRICT;
            CREATE INDEX devices_by_apns_token ON devices(apns_token) WHERE apns_token IS NOT NULL;

            CREATE TABLE live_activities (
                task_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                account_id TEXT NOT NULL,
                push_token TEXT NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (task_id, device_id)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX live_activities_by_device ON live_activities(device_id);

            -- The tasks changed since a list cursor's snapshot (`TaskSQL.moved`).
            CREATE INDEX tasks_changed ON tasks(account_id, changed_seq);

            -- What retention looks for (`Retention`).
            CREATE INDEX tasks_expiring ON tasks(updated_at) WHERE status IN ('done', 'cancelled');
            CREATE INDEX questions_closed ON questions(closed_at) WHERE status != 'pending';
            CREATE INDEX inbox_unread_by_age ON inbox_items(created_at) WHERE read_at IS NULL;
            CREATE INDEX inbox_read_by_age ON inbox_items(read_at) WHERE read_at IS NOT NULL;
            """),
        // `app-integrity.md#what-the-server-validates`: the account keeps the attested key's
        // ID, public key and counter. One key makes one account: the index covers the
        // accounts that are not deleted, so a deleted account's key can make a new one (the
        // row stays, marked, until the purge).
        Migration(version: 3, name: "attested keys", sql: """
            ALTER TABLE accounts ADD COLUMN attest_key_id BLOB;
            ALTER TABLE accounts ADD COLUMN attest_public_key BLOB;
            ALTER TABLE accounts ADD COLUMN attest_counter INTEGER;
            CREATE UNIQUE INDEX accounts_by_attested_key ON accounts(attest_key_id)
                WHERE attest_key_id IS NOT NULL AND deleted_at IS NULL;
            """),
        // The web console (`issue 13`): one-time login links, browser sessions and passkeys.
        // Secrets (the link's token, the session's cookie value) are kept as SHA-256 only.
        Migration(version: 4, name: "web sign-in", sql: """
            CREATE TABLE web_login_links (
                token_hash BLOB PRIMARY KEY,
                account_id TEXT NOT NULL,
                expires_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX web_login_links_by_account ON web_login_links(account_id);
            CREATE TABLE web_sessions (
                id TEXT PRIMARY KEY,
                secret_hash BLOB NOT NULL UNIQUE,
                account_id TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER NOT NULL,
                user_agent TEXT
            ) STRICT;
            CREATE INDEX web_sessions_by_account ON web_sessions(account_id);
            CREATE TABLE passkeys (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                credential_id BLOB NOT NULL UNIQUE,
                public_key BLOB NOT NULL,
                sign_count INTEGER NOT NULL,
                name TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER
            ) STRICT;
            CREATE INDEX passkeys_by_account ON passkeys(account_id);
            """),
        // `push.md`: the outbox. A change writes the pushes it causes here in its own
        // transaction (`PushPlanner`), and the dispatcher sends them after the commit, so a
        // push is never lost to a crash and never sent for a change that rolled back. A job
        // is one push, payload built; a window is a coalesced push (a Live Activity `update`
        // per task, a widget reload per device) whose payload is built when it is sent.
        Migration(version: 5, name: "push outbox", sql: """
            CREATE TABLE push_jobs (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                account_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                -- Which token of the device (or which Live Activity registration) it goes to,
                -- so that a token APNs refuses can be removed.
                token_kind TEXT NOT NULL CHECK (token_kind IN ('apns', 'start', 'widget', 'activity')),
                task_id TEXT,
                environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
                token TEXT NOT NULL,
                push_type TEXT NOT NULL,
                topic TEXT NOT NULL,
                priority INTEGER NOT NULL,
                collapse_id TEXT,
                expiration INTEGER,
                payload BLOB NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                due_at INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX push_jobs_due ON push_jobs(due_at);
            CREATE INDEX push_jobs_by_device ON push_jobs(account_id, device_id);
            CREATE TABLE push_windows (
                kind TEXT NOT NULL CHECK (kind IN ('activity', 'widget')),
                account_id TEXT NOT NULL,
                -- The task (activity) or the device (widget).
                subject TEXT NOT NULL,
                last_sent_at INTEGER,
                -- When the coalesced push is due; null while nothing waits.
                due_at INTEGER,
                PRIMARY KEY (kind, account_id, subject)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX push_windows_due ON push_windows(due_at) WHERE due_at IS NOT NULL;
            """),
        // The activity log in one B-tree ordered the way it is read and trimmed: by key, then
        // time. Before, an entry went into four (the table, the unique index of `id`,
        // `activity_by_key` and `activity_by_age`), and the newest-200 trim took four deletes
        // per entry; an API key's request wrote all eight. The 7-day expiry now walks each
        // key's entries from the oldest (`Retention`), so `activity_by_age` is not needed.
        Migration(version: 6, name: "activity keyed by key and time", sql: """
            CREATE TABLE activity_by_key_and_time (
                key_id TEXT NOT NULL,
                at INTEGER NOT NULL,
                id TEXT NOT NULL,
                surface TEXT NOT NULL CHECK (surface IN ('mcp', 'rest')),
                action TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
                code TEXT,
                message TEXT,
                duration_ms INTEGER NOT NULL,
                client_name TEXT,
                client_version TEXT,
                host TEXT,
                PRIMARY KEY (key_id, at, id)
            ) STRICT, WITHOUT ROWID;
            INSERT INTO activity_by_key_and_time
                (key_id, at, id, surface, action, status, code, message, duration_ms, client_name, client_version, host)
                SELECT key_id, at, id, surface, action, status, code, message, duration_ms, client_name, client_version, host
                FROM activity;
            DROP TABLE activity;
            ALTER TABLE activity_by_key_and_time RENAME TO activity;
            """),
        // The same tables with each CHECK of a list of more than two values written as
        // comparisons. SQLite checks `x IN ('a', 'b', 'c')` against a temporary table it builds
        // (and frees) for each execution of the statement: two per task insert, a tenth of a
        // task write's time. The rules are the same.
        Migration(version: 7, name: "checks without temporary tables", sql: """
            CREATE TABLE tasks_rebuilt (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                title TEXT NOT NULL,
                description TEXT NOT NULL,
                status TEXT NOT NULL
                    CHECK (status = 'todo' OR status = 'in_progress' OR status = 'done' OR status = 'cancelled'),
                priority TEXT NOT NULL
                    CHECK (priority = 'low' OR priority = 'medium' OR priority = 'high' OR priority = 'urgent'),
                notify INTEGER NOT NULL CHECK (notify IN (0, 1)),
                progress INTEGER CHECK (progress BETWEEN 0 AND 100),
                status_note TEXT,
                source TEXT NOT NULL CHECK (source IN ('agent', 'app')),
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                completed_at INTEGER,
                seen_at INTEGER,
                host TEXT,
                created_seq INTEGER NOT NULL,
                changed_seq INTEGER NOT NULL
            ) STRICT;
            INSERT INTO tasks_rebuilt (id, account_id, key_id, title, description, status, priority, notify, progress, status_note, source, created_at, updated_at, completed_at, seen_at, host, created_seq, changed_seq)
                SELECT id, account_id, key_id, title, description, status, priority, notify, progress, status_note, source, created_at, updated_at, completed_at, seen_at, host, created_seq, changed_seq FROM tasks;
            DROP TABLE tasks;
            ALTER TABLE tasks_rebuilt RENAME TO tasks;
            CREATE INDEX tasks_by_key ON tasks(key_id, updated_at DESC, id DESC);
            CREATE INDEX tasks_by_account ON tasks(account_id, updated_at DESC, id DESC);
            CREATE INDEX tasks_closed ON tasks(key_id, status, updated_at) WHERE status IN ('done', 'cancelled');
            CREATE INDEX tasks_changed ON tasks(account_id, changed_seq);
            CREATE INDEX tasks_expiring ON tasks(updated_at) WHERE status IN ('done', 'cancelled');

            CREATE TABLE questions_rebuilt (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                task_id TEXT,
                prompt TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind = 'confirm' OR kind = 'choice' OR kind = 'text'),
                options TEXT NOT NULL,
                status TEXT NOT NULL
                    CHECK (status = 'pending' OR status = 'answered' OR status = 'expired' OR status = 'cancelled'),
                answer TEXT,
                created_at INTEGER NOT NULL,
                answered_at INTEGER,
                expires_at INTEGER NOT NULL,
                closed_at INTEGER
            ) STRICT;
            INSERT INTO questions_rebuilt (id, account_id, key_id, task_id, prompt, kind, options, status, answer, created_at, answered_at, expires_at, closed_at)
                SELECT id, account_id, key_id, task_id, prompt, kind, options, status, answer, created_at, answered_at, expires_at, closed_at FROM questions;
            DROP TABLE questions;
            ALTER TABLE questions_rebuilt RENAME TO questions;
            CREATE INDEX questions_by_key ON questions(key_id, status, created_at DESC);
            CREATE INDEX questions_by_account ON questions(account_id, status, created_at DESC);
            CREATE INDEX questions_pending ON questions(expires_at) WHERE status = 'pending';
            CREATE INDEX questions_by_task ON questions(task_id) WHERE task_id IS NOT NULL;
            CREATE INDEX questions_closed ON questions(closed_at) WHERE status != 'pending';

            CREATE TABLE inbox_items_rebuilt (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind = 'task_assigned' OR kind = 'task_changed' OR kind = 'task_deleted'
                    OR kind = 'answer' OR kind = 'message'),
                from_key_id TEXT,
                from_label TEXT,
                task_id TEXT,
                question_id TEXT,
                text TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                read_at INTEGER
            ) STRICT;
            INSERT INTO inbox_items_rebuilt (id, account_id, key_id, kind, from_key_id, from_label, task_id, question_id, text, created_at, read_at)
                SELECT id, account_id, key_id, kind, from_key_id, from_label, task_id, question_id, text, created_at, read_at FROM inbox_items;
            DROP TABLE inbox_items;
            ALTER TABLE inbox_items_rebuilt RENAME TO inbox_items;
            CREATE INDEX inbox_by_key ON inbox_items(key_id, created_at, id);
            CREATE INDEX inbox_unread ON inbox_items(key_id, created_at) WHERE read_at IS NULL;
            CREATE INDEX inbox_unread_by_age ON inbox_items(created_at) WHERE read_at IS NULL;
            CREATE INDEX inbox_read_by_age ON inbox_items(read_at) WHERE read_at IS NOT NULL;
            """),
        // The storage quota (`StorageQuota`): each key keeps the UTF-8 bytes of the text its
        // tasks, questions and inbox items hold, and an account's use is the sum over its
        // keys (20 at most, plus deleted ones not purged yet). Triggers keep the count, so
        // every path that adds, changes or removes a row counts it in the same transaction,
        // the purge and retention included, and no request ever scans. The column lives on
        // `keys` because a task's creation, deletion and change of status already change that
        // row (its counts): the count adds no page to those transactions. The first statement counts what the file holds now.
        Migration(version: 8, name: "text bytes per key", sql: """
            ALTER TABLE keys ADD COLUMN text_bytes INTEGER NOT NULL DEFAULT 0;
            UPDATE keys SET text_bytes =
                coalesce((SELECT sum(\(taskBytes(""))) FROM tasks WHERE key_id = keys.id), 0)
                + coalesce((SELECT sum(\(questionBytes(""))) FROM questions WHERE key_id = keys.id), 0)
                + coalesce((SELECT sum(\(itemBytes(""))) FROM inbox_items WHERE key_id = keys.id), 0);
            \(countingTriggers("tasks", ["title", "description", "status_note"], taskBytes))
            \(countingTriggers("questions", ["prompt", "options", "answer"], questionBytes))
            \(countingTriggers("inbox_items", ["text"], itemBytes))
            """),
        // The planner prunes the windows that ended with nothing waiting on every change it
        // plans (`OutboxSQL.pruneWindows`). `push_windows_due` holds only the windows that
        // wait, so the prune read every window of every account: a server with many devices
        // paid a scan of them on each write. This index holds exactly the rows the prune may
        // delete, by the time it compares.
        Migration(version: 9, name: "idle push windows by age", sql: """
            CREATE INDEX push_windows_idle ON push_windows(last_sent_at) WHERE due_at IS NULL;
            """),
        // Web Push (issue 21): the server's one VAPID key, made at the first start and kept for
        // the store's life, and the browsers' subscriptions. The client makes a subscription's
        // ID, so each account has its own; one endpoint belongs to one subscription.
        Migration(version: 10, name: "web push", sql: """
            CREATE TABLE web_push_vapid (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                private_key BLOB NOT NULL CHECK (length(private_key) = 32),
                created_at INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE web_push_subscriptions (
                account_id TEXT NOT NULL,
                id TEXT NOT NULL,
                endpoint TEXT NOT NULL,
                p256dh BLOB NOT NULL CHECK (length(p256dh) = 65),
                auth BLOB NOT NULL CHECK (length(auth) = 16),
                label TEXT,
                expiration_time INTEGER,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (account_id, id)
            ) STRICT;
            CREATE INDEX web_push_subscriptions_by_endpoint ON web_push_subscriptions(endpoint);
            """),
        // Web Push's outbox (issue 21): a push planned in a change's own transaction, its payload
        // in clear (encrypted at each send, for the subscription's keys of then), until the
        // push service took it, refused it for good, or `expires_at` passed (a question's
        // expiry, else 24 hours after it was planned: the time retries stop).
        Migration(version: 11, name: "web push outbox", sql: """
            CREATE TABLE web_push_jobs (
                id INTEGER PRIMARY KEY,
                account_id TEXT NOT NULL,
                subscription_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                urgency TEXT NOT NULL,
                topic TEXT,
                payload BLOB NOT NULL,
                expires_at INTEGER NOT NULL,
                due_at INTEGER NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX web_push_jobs_due ON web_push_jobs(due_at);
            CREATE INDEX web_push_jobs_by_subscription ON web_push_jobs(account_id, subscription_id);
            """),
        // What each key may do: one bit per `Scope` (`Scope.bit`: tasks:read 1, tasks:write
        // 2, questions 4, notify 8, messages 16, inbox 32). A key made before keeps every
        // scope (63); none may hold none, or a bit no scope has.
        Migration(version: 12, name: "key scopes", sql: """
            ALTER TABLE keys ADD COLUMN scopes INTEGER NOT NULL DEFAULT 63 CHECK (scopes BETWEEN 1 AND 63);
            """),
        // OAuth 2.1 for connectors (issue 24): the clients (registered by RFC 7591, or known by
        // their metadata document's URL), the grants (one consent: a connector acting as one
        // key with some scopes), the codes of consents not traded yet, and the tokens. Every
        // bearer secret (code, access token, refresh token, client secret) is kept as its
        // SHA-256 only. A used code and a rotated refresh token stay until they expire, so a
        // second use is recognized and revokes the grant (OAuth 2.1, 4.1.2 and 4.3.1).
        Migration(version: 13, name: "oauth", sql: """
            CREATE TABLE oauth_clients (
                -- The client_id: `mcpc_...` for a registered client, the document's https URL
                -- for a metadata document.
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('registered', 'document')),
                name TEXT NOT NULL,
                -- The exact redirect URIs, one per line (a URI has no raw line break).
                redirect_uris TEXT NOT NULL,
                auth_method TEXT NOT NULL CHECK (auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
                secret_hash BLOB,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER NOT NULL,
                -- A metadata document's: until when the copy kept here may be used.
                document_expires_at INTEGER,
                CHECK ((auth_method = 'none') = (secret_hash IS NULL))
            ) STRICT;
            CREATE INDEX oauth_clients_idle ON oauth_clients(last_used_at);
            CREATE TABLE oauth_grants (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                client_id TEXT NOT NULL,
                client_name TEXT NOT NULL,
                scopes INTEGER NOT NULL CHECK (scopes BETWEEN 1 AND 63),
                resource TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER
            ) STRICT;
            CREATE INDEX oauth_grants_by_key ON oauth_grants(key_id);
            CREATE INDEX oauth_grants_by_account ON oauth_grants(account_id);
            CREATE INDEX oauth_grants_by_client ON oauth_grants(client_id);
            CREATE TABLE oauth_codes (
                code_hash BLOB PRIMARY KEY,
                client_id TEXT NOT NULL,
                account_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                scopes INTEGER NOT NULL CHECK (scopes BETWEEN 1 AND 63),
                redirect_uri TEXT NOT NULL,
                code_challenge TEXT NOT NULL,
                resource TEXT NOT NULL,
                expires_at INTEGER NOT NULL,
                -- Set once traded: the grant a second use revokes.
                grant_id TEXT
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX oauth_codes_by_expiry ON oauth_codes(expires_at);
            CREATE TABLE oauth_access_tokens (
                token_hash BLOB PRIMARY KEY,
                grant_id TEXT NOT NULL,
                scopes INTEGER NOT NULL CHECK (scopes BETWEEN 1 AND 63),
                expires_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX oauth_access_tokens_by_grant ON oauth_access_tokens(grant_id);
            CREATE INDEX oauth_access_tokens_by_expiry ON oauth_access_tokens(expires_at);
            CREATE TABLE oauth_refresh_tokens (
                token_hash BLOB PRIMARY KEY,
                grant_id TEXT NOT NULL,
                scopes INTEGER NOT NULL CHECK (scopes BETWEEN 1 AND 63),
                expires_at INTEGER NOT NULL,
                -- Set when traded for new tokens: a later use is a stolen copy's.
                used_at INTEGER
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX oauth_refresh_tokens_by_grant ON oauth_refresh_tokens(grant_id);
            CREATE INDEX oauth_refresh_tokens_by_expiry ON oauth_refresh_tokens(expires_at);
            """),
        // The storage quota read one row: the account's text, kept by the same triggers as the
        // keys' (`Schema+AccountText.swift`), instead of a sum over the account's key rows
        // (32,000 instructions of each task creation). The first statement carries what the
        // keys count now, deleted keys not purged yet included, as the sum did.
        Migration(version: 14, name: "text bytes per account", sql: accountTextMigration),
        // `tasks_closed` was meant for the closed-task cap's "oldest closed task of the key"
        // (`TaskSQL.oldestClosed`), but with `status` between the key and the time it cannot
        // give both statuses in time order, and the planner reads that query through
        // `tasks_by_key` from the key's oldest task (at most the key's 1,000 open ones before
        // the first closed one; `TaskQueryPlanTests` holds every plan). No query used it, and
        // every task that closed, reopened or changed while closed moved an entry in it: a
        // page per key at each COMMIT, 17,000 instructions of a closing `PATCH`.
        Migration(version: 15, name: "no index of closed tasks by key", sql: """
            DROP INDEX tasks_closed;
            """),
        // Issue 25: a dispatcher claims the jobs it sends with a lease, so that several nodes
        // on one database never send one job twice and a node that dies has its jobs sent by
        // another once the lease ends (`Outbox.claimDue`). NULL: not claimed. Only leased
        // jobs are in the index, so the next lease to end is found without a scan.
        Migration(version: 16, name: "job leases", sql: """
            ALTER TABLE push_jobs ADD COLUMN leased_until INTEGER;
            ALTER TABLE web_push_jobs ADD COLUMN leased_until INTEGER;
            CREATE INDEX push_jobs_leased ON push_jobs(leased_until) WHERE leased_until IS NOT NULL;
            CREATE INDEX web_push_jobs_leased ON web_push_jobs(leased_until) WHERE leased_until IS NOT NULL;
            """),
        // Issue 25: what several nodes on one PostgreSQL share, the change feed between them
        // and the rate limits' cells (`PostgresSchema.severalNodesMigration`). One SQLite file
        // is one process, which needs neither: the number is kept so that both schemas count
        // their migrations alike.
        Migration(version: 17, name: "several nodes", sql: ""),
        // Issue 25: the one-time challenges of App Attest and the passkeys, which several
        // nodes share on PostgreSQL (`PostgresSchema.challengesMigration`). One SQLite file is
        // one process, which keeps them in memory: no SQL, as for 17.
        Migration(version: 18, name: "shared challenges", sql: ""),
    ]

    // The SQL of migration 8, written once here so that the twelve triggers cannot drift
    // apart. Part of a shipped migration as soon as it ships: never change it; a new rule of
    // what counts is a new migration that drops and makes the triggers again.

    /// The counted bytes of a row, in SQL: `length` of a BLOB is its size in bytes (of a
    /// TEXT it is characters, counted by walking the text); the cast only relabels the
    /// UTF-8 bytes. `prefix` is `NEW.`, `OLD.` or nothing. Swift counts the same bytes in
    /// `StorageQuota.bytes`.
    static func taskBytes(_ prefix: String) -> String {
        "length(CAST(\(prefix)title AS BLOB)) + length(CAST(\(prefix)description AS BLOB)) "
            + "+ coalesce(length(CAST(\(prefix)status_note AS BLOB)), 0)"
    }

    static func questionBytes(_ prefix: String) -> String {
        "length(CAST(\(prefix)prompt AS BLOB)) + length(CAST(\(prefix)options AS BLOB)) "
            + "+ coalesce(length(CAST(\(prefix)answer AS BLOB)), 0)"
    }

    static func itemBytes(_ prefix: String) -> String {
        "length(CAST(\(prefix)text AS BLOB))"
    }

    /// The four triggers that keep `keys.text_bytes` for `table`: a row comes, goes, changes
    /// its text (one UPDATE, skipped when the size stays: a progress tick costs only the
    /// comparison), or moves to another key (no statement does that today; counted anyway).
    private static func countingTriggers(_ table: String, _ columns: [String], _ bytes: (String) -> String) -> String {
        let listed = columns.joined(separator: ", ")
        return """
            CREATE TRIGGER \(table)_text_added AFTER INSERT ON \(table) BEGIN
                UPDATE keys SET text_bytes = text_bytes + \(bytes("NEW.")) WHERE id = NEW.key_id;
            END;
            CREATE TRIGGER \(table)_text_removed AFTER DELETE ON \(table) BEGIN
                UPDATE keys SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.key_id;
            END;
            CREATE TRIGGER \(table)_text_changed AFTER UPDATE OF \(listed) ON \(table)
                WHEN NEW.key_id = OLD.key_id AND \(bytes("NEW.")) != \(bytes("OLD.")) BEGIN
                UPDATE keys SET text_bytes = text_bytes + \(bytes("NEW.")) - (\(bytes("OLD."))) WHERE id = NEW.key_id;
            END;
            CREATE TRIGGER \(table)_text_moved AFTER UPDATE OF key_id ON \(table)
                WHEN NEW.key_id != OLD.key_id BEGIN
                UPDATE keys SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.key_id;
                UPDATE keys SET text_bytes = text_bytes + \(bytes("NEW.")) WHERE id = NEW.key_id;
            END;
            """
    }
}
