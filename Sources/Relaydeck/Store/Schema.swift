import SQLite

/// The schema, as an ordered list of migrations. Never edit a migration that has shipped:
/// add the next one.
enum Schema {
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
    ]
}
