import Clock
import DomainTestSupport
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

/// Migrations 6 and 7 rebuild tables (the activity log keyed by key and time; tasks,
/// questions and the inbox with their CHECKs as comparisons): a file written by the schema
/// before them keeps every row, and the rules still hold.
@Suite struct SchemaUpgradeTests {
    /// A database at schema version 5 (the last before the rebuilds), with a row in each
    /// rebuilt table; closed again.
    static func versionFiveFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("old.db")
        let db = try Database(path: path)
        defer { db.close() }
        _ = try Migrator.migrate(db, Array(Schema.migrations.prefix(5)))
        try db.execute("""
            INSERT INTO accounts (id, token_hash, created_at) VALUES ('acc_1', x'01', 1);
            INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at)
                VALUES ('key_1', 'acc_1', 'agent', x'02', 'mck_abcd', 'wxyz', 1);
            INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, progress, status_note,
                source, created_at, updated_at, completed_at, seen_at, host, created_seq, changed_seq)
                VALUES ('tsk_1', 'acc_1', 'key_1', 'Write the report', '', 'done', 'urgent', 1, 100, 'shipped',
                'agent', 10, 20, 20, 10, 'studio', 1, 2);
            INSERT INTO questions (id, account_id, key_id, task_id, prompt, kind, options, status, answer, created_at,
                answered_at, expires_at, closed_at)
                VALUES ('qst_1', 'acc_1', 'key_1', 'tsk_1', 'Ship it?', 'choice', '["yes","no"]', 'answered', 'yes', 11,
                12, 99, 12);
            INSERT INTO inbox_items (id, account_id, key_id, kind, from_key_id, from_label, task_id, question_id, text,
                created_at, read_at)
                VALUES ('inb_1', 'acc_1', 'key_1', 'answer', NULL, NULL, 'tsk_1', 'qst_1', 'yes', 12, NULL);
            INSERT INTO activity (id, key_id, at, surface, action, status, code, message, duration_ms, client_name,
                client_version, host)
                VALUES ('act_2', 'key_1', 30, 'mcp', 'update_task', 'error', 'not_found', 'Task not found.', 4,
                'claude-code', '2.1', 'studio'),
                ('act_1', 'key_1', 25, 'rest', 'GET /v1/tasks', 'ok', NULL, NULL, 0, NULL, NULL, NULL);
            """)
        return path
    }

    static func values(_ store: Store, _ sql: String) throws -> [String] {
        try store.read { db in
            let statement = try db.prepare(sql)
            var out: [String] = []
            while try statement.step() { out.append(statement.string(0) ?? "NULL") }
            return out
        }
    }

    @Test func aVersionFiveFileKeepsEveryRowOfTheRebuiltTables() throws {
        let directory = TemporaryDirectory()
        let path = try Self.versionFiveFile(in: directory)
        let store = Store(path: path)
        defer { store.close() }
        #expect(try store.open())
        #expect(try Self.values(store, "PRAGMA user_version") == [String(Schema.migrations.count)])
        #expect(try Self.values(store, """
            SELECT id || title || status || priority || notify || progress || status_note || source || created_at \
            || updated_at || completed_at || seen_at || host || created_seq || changed_seq FROM tasks
            """) == ["tsk_1Write the reportdoneurgent1100shippedagent10202010studio12"])
        #expect(try Self.values(store, """
            SELECT id || task_id || prompt || kind || options || status || answer || created_at || answered_at \
            || expires_at || closed_at FROM questions
            """) == [#"qst_1tsk_1Ship it?choice["yes","no"]answeredyes11129912"#])
        #expect(try Self.values(store, "SELECT id || kind || task_id || question_id || text || created_at || coalesce(read_at, '-') FROM inbox_items")
            == ["inb_1answertsk_1qst_1yes12-"])
        #expect(try Self.values(store, """
            SELECT id || at || surface || action || status || coalesce(code, '-') || coalesce(message, '-') || duration_ms \
            || coalesce(client_name, '-') || coalesce(host, '-') FROM activity ORDER BY at DESC, id DESC
            """) == ["act_230mcpupdate_taskerrornot_foundTask not found.4claude-codestudio", "act_125restGET /v1/tasksok--0--"])
        // The indexes of the rebuilt tables are back, and the integrity check passes.
        let indexes = try Self.values(store, "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        for name in ["tasks_by_key", "tasks_by_account", "tasks_changed", "tasks_expiring",
                     "questions_by_key", "questions_by_account", "questions_pending", "questions_by_task", "questions_closed",
                     "inbox_by_key", "inbox_unread", "inbox_unread_by_age", "inbox_read_by_age"] {
            #expect(indexes.contains(name), "\(name)")
        }
        #expect(!indexes.contains("activity_by_age") && !indexes.contains("activity_by_key"))
        // Migration 15: no query read it.
        #expect(!indexes.contains("tasks_closed"))
        #expect(try Self.values(store, "PRAGMA integrity_check") == ["ok"])
    }

    /// The checks written as comparisons refuse what the lists refused.
    @Test(arguments: [
        "UPDATE tasks SET status = 'blocked'", "UPDATE tasks SET priority = 'critical'", "UPDATE tasks SET source = 'bot'",
        "UPDATE questions SET kind = 'number'", "UPDATE questions SET status = 'open'", "UPDATE inbox_items SET kind = 'note'",
        "UPDATE tasks SET status = NULL",
    ])
    func theRebuiltChecksStillRefuseValuesOutsideTheirLists(sql: String) throws {
        let directory = TemporaryDirectory()
        let store = Store(path: try Self.versionFiveFile(in: directory))
        defer { store.close() }
        #expect(try store.open())
        #expect(throws: StoreError.self) { try store.write { db in try db.execute(sql) } }
    }

    /// The statements a task write and an activity batch run build no temporary table (an
    /// `x IN (a, b, c)` CHECK, `RETURNING` and `IN (SELECT ...)` each made one per call).
    @Test(arguments: [
        TaskSQL.insert, TaskSQL.update, TaskSQL.bumpSeq, TaskSQL.moveCount, TaskSQL.insertMove, TaskSQL.pruneMoves,
        ActivityLog.SQL.insert, ActivityLog.SQL.trim, Questions.SQL.insert, InboxSQL.insert,
    ])
    func hotWritesBuildNoTemporaryTable(sql: String) throws {
        let test = try TestStore(.memory)
        let program = try test.store.read { db in
            let statement = try db.prepare("EXPLAIN " + sql)
            var opcodes: [String] = []
            while try statement.step() { opcodes.append(statement.string(1) ?? "") }
            return opcodes
        }
        #expect(!program.isEmpty)
        #expect(!program.contains("OpenEphemeral"), "\(sql)")
    }

    /// Migration 12: a key made before scopes keeps every one of them.
    @Test func aKeyMadeBeforeScopesKeepsEveryScope() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("old.db")
        do {
            let db = try Database(path: path)
            defer { db.close() }
            _ = try Migrator.migrate(db, Array(Schema.migrations.prefix(11)))
            try db.execute("""
                INSERT INTO accounts (id, token_hash, created_at) VALUES ('acc_1', x'01', 1);
                INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at)
                    VALUES ('key_1', 'acc_1', 'agent', x'02', 'mck_abcd', 'wxyz', 1);
                """)
        }
        let store = Store(path: path)
        defer { store.close() }
        #expect(try store.open())
        #expect(try Self.values(store, "SELECT scopes FROM keys") == ["63"])
        let keys = Keys(store: store, clock: ManualClock(), random: SeededRandom(), hub: EventHub())
        #expect(try await keys.get(accountID: "acc_1", keyID: "key_1").scopes == .all)
    }
}
