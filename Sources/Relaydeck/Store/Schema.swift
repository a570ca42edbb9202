import SQLite

/// The schema, as an ordered list of migrations. Never edit a migration that has shipped:
/// add the next one.
public enum Schema {
    /// The `user_version` of a store this binary has brought up to date.
    public static var version: Int { migrations.last?.version ?? 0 }

    static let migrations: [Migration] = [
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
    ]
}
