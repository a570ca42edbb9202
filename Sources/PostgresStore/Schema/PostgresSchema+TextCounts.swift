// Migrations 8 and 14 in PostgreSQL: the storage quota's counts (`keys.text_bytes`, then
// `accounts.text_bytes` too), kept by triggers as in SQLite (`Schema.swift`,
// `Schema+AccountText.swift`). SQLite's trigger bodies are PL/pgSQL functions here, one per
// trigger and named after it; each trigger is `FOR EACH ROW` with the same event, the same
// columns after `UPDATE OF` and the same `WHEN`, so the counts move exactly as SQLite's do
// (`PostgresStoreTests` runs the same statements through both and compares). An AFTER
// trigger's function returns NULL: its result is ignored.
//
// Part of a shipped migration as soon as it ships: never change this SQL; a new rule of what
// counts is a new migration, in both dialects.
extension PostgresSchema {
    /// SQLite's `length(CAST(x AS BLOB))` is the UTF-8 byte count of a text; in a UTF8
    /// database that is `octet_length(x)`. `prefix` is `NEW.`, `OLD.` or nothing.
    static func taskBytes(_ prefix: String) -> String {
        "octet_length(\(prefix)title) + octet_length(\(prefix)description) + coalesce(octet_length(\(prefix)status_note), 0)"
    }

    static func questionBytes(_ prefix: String) -> String {
        "octet_length(\(prefix)prompt) + octet_length(\(prefix)options) + coalesce(octet_length(\(prefix)answer), 0)"
    }

    static func itemBytes(_ prefix: String) -> String {
        "octet_length(\(prefix)text)"
    }

    /// The counted tables, their counted columns and their bytes.
    private static let counted: [(table: String, columns: [String], bytes: @Sendable (String) -> String)] = [
        ("tasks", ["title", "description", "status_note"], taskBytes),
        ("questions", ["prompt", "options", "answer"], questionBytes),
        ("inbox_items", ["text"], itemBytes),
    ]

    static let keyTextMigration: [String] = [
        "ALTER TABLE keys ADD COLUMN text_bytes BIGINT NOT NULL DEFAULT 0",
        """
        UPDATE keys SET text_bytes =
            coalesce((SELECT sum(\(taskBytes(""))) FROM tasks WHERE key_id = keys.id), 0)
            + coalesce((SELECT sum(\(questionBytes(""))) FROM questions WHERE key_id = keys.id), 0)
            + coalesce((SELECT sum(\(itemBytes(""))) FROM inbox_items WHERE key_id = keys.id), 0)
        """,
    ] + counted.flatMap { keyCountingTriggers($0.table, $0.columns, $0.bytes) }

    static let accountTextMigration: [String] = [
        "ALTER TABLE accounts ADD COLUMN text_bytes BIGINT NOT NULL DEFAULT 0",
        "UPDATE accounts SET text_bytes = coalesce((SELECT sum(text_bytes) FROM keys WHERE account_id = accounts.id), 0)",
    ] + counted.flatMap { accountCountingTriggers($0.table, $0.columns, $0.bytes) }

    /// Migration 8's four triggers for `table`: a row comes, goes, changes its text (skipped
    /// when the size stays), or moves to another key.
    private static func keyCountingTriggers(_ table: String, _ columns: [String], _ bytes: (String) -> String) -> [String] {
        let listed = columns.joined(separator: ", ")
        return [
            function("\(table)_text_added", """
                UPDATE keys SET text_bytes = text_bytes + (\(bytes("NEW."))) WHERE id = NEW.key_id;
                """),
            "CREATE TRIGGER \(table)_text_added AFTER INSERT ON \(table) FOR EACH ROW EXECUTE FUNCTION \(table)_text_added()",
            function("\(table)_text_removed", """
                UPDATE keys SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.key_id;
                """),
            "CREATE TRIGGER \(table)_text_removed AFTER DELETE ON \(table) FOR EACH ROW EXECUTE FUNCTION \(table)_text_removed()",
            function("\(table)_text_changed", """
                UPDATE keys SET text_bytes = text_bytes + (\(bytes("NEW."))) - (\(bytes("OLD."))) WHERE id = NEW.key_id;
                """),
            """
            CREATE TRIGGER \(table)_text_changed AFTER UPDATE OF \(listed) ON \(table) FOR EACH ROW
                WHEN (NEW.key_id = OLD.key_id AND \(bytes("NEW.")) != \(bytes("OLD.")))
                EXECUTE FUNCTION \(table)_text_changed()
            """,
            function("\(table)_text_moved", """
                UPDATE keys SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.key_id;
                    UPDATE keys SET text_bytes = text_bytes + (\(bytes("NEW."))) WHERE id = NEW.key_id;
                """),
            """
            CREATE TRIGGER \(table)_text_moved AFTER UPDATE OF key_id ON \(table) FOR EACH ROW
                WHEN (NEW.key_id != OLD.key_id) EXECUTE FUNCTION \(table)_text_moved()
            """,
        ]
    }

    /// Migration 14's: the same four, each moving the account's count with the key's.
    private static func accountCountingTriggers(_ table: String, _ columns: [String], _ bytes: (String) -> String) -> [String] {
        let listed = columns.joined(separator: ", ")
        return [
            "DROP TRIGGER \(table)_text_added ON \(table)",
            "DROP TRIGGER \(table)_text_removed ON \(table)",
            "DROP TRIGGER \(table)_text_changed ON \(table)",
            "DROP TRIGGER \(table)_text_moved ON \(table)",
            function("\(table)_text_added", """
                UPDATE keys SET text_bytes = text_bytes + (\(bytes("NEW."))) WHERE id = NEW.key_id;
                    UPDATE accounts SET text_bytes = text_bytes + (\(bytes("NEW."))) WHERE id = NEW.account_id;
                """),
            "CREATE TRIGGER \(table)_text_added AFTER INSERT ON \(table) FOR EACH ROW EXECUTE FUNCTION \(table)_text_added()",
            function("\(table)_text_removed", """
                UPDATE keys SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.key_id;
                    UPDATE accounts SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.account_id;
                """),
            "CREATE TRIGGER \(table)_text_removed AFTER DELETE ON \(table) FOR EACH ROW EXECUTE FUNCTION \(table)_text_removed()",
            function("\(table)_text_changed", """
                UPDATE keys SET text_bytes = text_bytes + (\(bytes("NEW."))) - (\(bytes("OLD."))) WHERE id = NEW.key_id;
                    UPDATE accounts SET text_bytes = text_bytes + (\(bytes("NEW."))) - (\(bytes("OLD."))) WHERE id = NEW.account_id;
                """),
            """
            CREATE TRIGGER \(table)_text_changed AFTER UPDATE OF \(listed) ON \(table) FOR EACH ROW
                WHEN (NEW.key_id = OLD.key_id AND NEW.account_id = OLD.account_id
                    AND \(bytes("NEW.")) != \(bytes("OLD.")))
                EXECUTE FUNCTION \(table)_text_changed()
            """,
            function("\(table)_text_moved", """
                UPDATE keys SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.key_id;
                    UPDATE keys SET text_bytes = text_bytes + (\(bytes("NEW."))) WHERE id = NEW.key_id;
                    UPDATE accounts SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.account_id;
                    UPDATE accounts SET text_bytes = text_bytes + (\(bytes("NEW."))) WHERE id = NEW.account_id;
                """),
            """
            CREATE TRIGGER \(table)_text_moved AFTER UPDATE OF key_id, account_id ON \(table) FOR EACH ROW
                WHEN (NEW.key_id != OLD.key_id OR NEW.account_id != OLD.account_id)
                EXECUTE FUNCTION \(table)_text_moved()
            """,
        ]
    }

    /// A trigger function whose body is `body` (statements ending in `;`). `CREATE OR REPLACE`:
    /// migration 14 gives migration 8's functions new bodies under the same names.
    private static func function(_ name: String, _ body: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                \(body)
                RETURN NULL;
            END
            $$
        """
    }
}
