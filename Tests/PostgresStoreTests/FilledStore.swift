import Postgres
import PostgresStore
import Relaydeck
import SQLite
import TestSupport

/// A SQLite store at the latest version with rows in every table the domain writes: texts in
/// several scripts and emoji, NULLs, blobs, and an AUTOINCREMENT table whose last job was
/// deleted (so `sqlite_sequence` is past its largest id).
enum FilledStore {
    static let script = """
        INSERT INTO accounts (id, token_hash, created_at, live_activities, attest_key_id, attest_public_key, attest_counter)
            VALUES ('acc_1', X'00FF10', 1700000000000, 1, X'0102', X'04AABB', 7);
        INSERT INTO accounts (id, token_hash, created_at, live_activities, deleted_at) VALUES ('acc_2', X'0203', 1700000000001, 0, 1700000009999);
        INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at, last_used_at, last_client_name, scopes)
            VALUES ('key_1', 'acc_1', 'Claude Code', X'AA01', 'mck_', 'wxyz', 1700000000100, 1700000000200, 'claude-code', 63);
        INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at, scopes)
            VALUES ('key_2', 'acc_1', 'Cursor “work” ✓', X'AA02', 'mck_', 'abcd', 1700000000101, 5);
        INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at) VALUES ('key_3', 'acc_2', 'Old', X'AA03', 'mck_', 'zzzz', 1);
        INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, progress, status_note, source,
            created_at, updated_at, completed_at, host, created_seq, changed_seq)
            VALUES ('tsk_1', 'acc_1', 'key_1', 'Résumé ✓ 日本語', 'ünïcode 😀
        two lines', 'in_progress', 'high', 1, 40, 'half way', 'agent', 1, 2, NULL, 'laptop', 1, 2);
        INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, created_at, updated_at,
            completed_at, created_seq, changed_seq) VALUES ('tsk_2', 'acc_1', 'key_2', 'Done', '', 'done', 'low', 0, 'app', 3, 4, 4, 3, 4);
        INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, created_at, updated_at,
            created_seq, changed_seq) VALUES ('tsk_3', 'acc_2', 'key_3', 'Gone with its key', 'x', 'todo', 'urgent', 0, 'agent', 5, 5, 5, 5);
        INSERT INTO task_moves (task_id, seq, old_updated_at, at) VALUES ('tsk_1', 2, 1, 2);
        UPDATE changes SET seq = 42;
        INSERT INTO questions (id, account_id, key_id, task_id, prompt, kind, options, status, answer, created_at, answered_at, expires_at, closed_at)
            VALUES ('qst_1', 'acc_1', 'key_1', 'tsk_1', 'Ship it?', 'choice', '["Yes","No"]', 'answered', 'Yes', 10, 11, 100, 11);
        INSERT INTO questions (id, account_id, key_id, prompt, kind, options, status, created_at, expires_at)
            VALUES ('qst_2', 'acc_1', 'key_2', 'Anything else?', 'text', '[]', 'pending', 12, 200);
        INSERT INTO inbox_items (id, account_id, key_id, kind, from_key_id, from_label, task_id, text, created_at, read_at)
            VALUES ('itm_1', 'acc_1', 'key_1', 'message', 'key_2', 'Cursor', NULL, 'Hello ✉️', 20, NULL);
        INSERT INTO inbox_items (id, account_id, key_id, kind, task_id, question_id, text, created_at, read_at)
            VALUES ('itm_2', 'acc_1', 'key_1', 'answer', 'tsk_1', 'qst_1', 'Yes', 21, 22);
        INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at) VALUES ('itm_0', 'acc_1', 'key_2', 'task_assigned', 'Do it', 21);
        INSERT INTO activity (key_id, at, id, surface, action, status, code, message, duration_ms, client_name, client_version, host)
            VALUES ('key_1', 30, 'act_1', 'mcp', 'tools/call create_task', 'ok', NULL, NULL, 4, 'claude-code', '1.0', 'laptop');
        INSERT INTO activity (key_id, at, id, surface, action, status, code, message, duration_ms)
            VALUES ('key_1', 31, 'act_2', 'rest', 'PATCH /v1/tasks/{task_id}', 'error', 'not_found', 'Task not found.', 1);
        INSERT INTO devices (account_id, id, platform, model, os_version, app_version, apns_environment, apns_token, push_to_start_token,
            widget_push_token, updated_at) VALUES ('acc_1', 'dev_1', 'ios', 'iPhone16,1', '18.1', '1.0', 'sandbox', 'aa11', NULL, 'bb22', 40);
        INSERT INTO live_activities (task_id, device_id, account_id, push_token, updated_at) VALUES ('tsk_1', 'dev_1', 'acc_1', 'cc33', 41);
        INSERT INTO push_jobs (account_id, device_id, token_kind, task_id, environment, token, push_type, topic, priority, collapse_id,
            expiration, payload, due_at, created_at) VALUES ('acc_1', 'dev_1', 'apns', NULL, 'sandbox', 'aa11', 'alert', 'app', 10, NULL, NULL, X'7B7D', 50, 50);
        INSERT INTO push_jobs (account_id, device_id, token_kind, task_id, environment, token, push_type, topic, priority, collapse_id,
            expiration, payload, due_at, created_at) VALUES ('acc_1', 'dev_1', 'activity', 'tsk_1', 'sandbox', 'cc33', 'liveactivity', 'app.push-type.liveactivity', 5, 'c', 99, X'7B2261223A317D', 51, 51);
        INSERT INTO push_jobs (account_id, device_id, token_kind, environment, token, push_type, topic, priority, payload, due_at, created_at)
            VALUES ('acc_1', 'dev_1', 'widget', 'sandbox', 'bb22', 'background', 'app', 5, X'', 52, 52);
        DELETE FROM push_jobs WHERE token_kind = 'widget';
        INSERT INTO push_windows (kind, account_id, subject, last_sent_at, due_at) VALUES ('activity', 'acc_1', 'tsk_1', 50, NULL);
        INSERT INTO web_login_links (token_hash, account_id, expires_at) VALUES (X'01', 'acc_1', 60);
        INSERT INTO web_sessions (id, secret_hash, account_id, created_at, last_used_at, user_agent) VALUES ('wss_1', X'02', 'acc_1', 61, 62, 'Firefox');
        INSERT INTO passkeys (id, account_id, credential_id, public_key, sign_count, name, created_at) VALUES ('psk_1', 'acc_1', X'03', X'04', 0, 'Laptop', 63);
        INSERT INTO web_push_vapid (id, private_key, created_at) VALUES (1, zeroblob(32), 64);
        INSERT INTO web_push_subscriptions (account_id, id, endpoint, p256dh, auth, label, expiration_time, created_at, updated_at)
            VALUES ('acc_1', 'wps_1', 'https://push.example/1', zeroblob(65), zeroblob(16), 'Laptop', NULL, 65, 65);
        INSERT INTO web_push_jobs (account_id, subscription_id, kind, urgency, topic, payload, expires_at, due_at, created_at)
            VALUES ('acc_1', 'wps_1', 'question', 'high', NULL, X'7B7D', 70, 66, 66);
        INSERT INTO oauth_clients (id, kind, name, redirect_uris, auth_method, secret_hash, created_at, last_used_at)
            VALUES ('oac_1', 'registered', 'Claude', 'https://claude.ai/cb', 'client_secret_basic', X'05', 67, 68);
        INSERT INTO oauth_grants (id, account_id, key_id, client_id, client_name, scopes, resource, created_at)
            VALUES ('ogr_1', 'acc_1', 'key_1', 'oac_1', 'Claude', 3, 'https://relay.example/mcp', 69);
        INSERT INTO oauth_codes (code_hash, client_id, account_id, key_id, scopes, redirect_uri, code_challenge, resource, expires_at, grant_id)
            VALUES (X'06', 'oac_1', 'acc_1', 'key_1', 3, 'https://claude.ai/cb', 'abc', 'https://relay.example/mcp', 70, 'ogr_1');
        INSERT INTO oauth_access_tokens (token_hash, grant_id, scopes, expires_at) VALUES (X'07', 'ogr_1', 3, 71);
        INSERT INTO oauth_refresh_tokens (token_hash, grant_id, scopes, expires_at, used_at) VALUES (X'08', 'ogr_1', 3, 72, NULL);
        """

    /// The store's file, filled, closed.
    static func make(in directory: TemporaryDirectory, version: Int = Schema.version) throws -> String {
        let database = try sqliteStore(upTo: version, in: directory)
        if version == Schema.version { try database.execute(script) }
        let path = database.path
        database.close()
        return path
    }
}
