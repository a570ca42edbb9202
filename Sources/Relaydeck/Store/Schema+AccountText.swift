// Migration 14: the storage quota's count kept per account as well as per key.
//
// `StorageQuota.admit` runs in every write that adds text (each task creation, each answer,
// each message) and summed `keys.text_bytes` over the account's keys: 20 key rows and their
// index entries, 32,000 instructions of a task creation's 444,000 (`BENCHMARKS.md`, round 4).
// Now each counting trigger moves `accounts.text_bytes` too, and the quota reads that one row.
// The key's count stays: the purge backlog of `/metrics` reads it for the deleted keys.
//
// Part of a shipped migration as soon as it ships: never change this SQL; a new rule of what
// counts is a new migration that drops and makes the triggers again.
extension Schema {
    static let accountTextMigration = """
        ALTER TABLE accounts ADD COLUMN text_bytes INTEGER NOT NULL DEFAULT 0;
        UPDATE accounts SET text_bytes = coalesce((SELECT sum(text_bytes) FROM keys WHERE account_id = accounts.id), 0);
        \(accountCountingTriggers("tasks", ["title", "description", "status_note"], taskBytes))
        \(accountCountingTriggers("questions", ["prompt", "options", "answer"], questionBytes))
        \(accountCountingTriggers("inbox_items", ["text"], itemBytes))
        """

    /// Migration 8's four triggers for `table`, made again so that each moves the account's
    /// count with the key's: a row comes, goes, changes its text (skipped when the size
    /// stays), or moves to another key or account (no statement does that today; counted
    /// anyway, both sides).
    private static func accountCountingTriggers(
        _ table: String, _ columns: [String], _ bytes: (String) -> String
    ) -> String {
        let listed = columns.joined(separator: ", ")
        return """
            DROP TRIGGER \(table)_text_added;
            DROP TRIGGER \(table)_text_removed;
            DROP TRIGGER \(table)_text_changed;
            DROP TRIGGER \(table)_text_moved;
            CREATE TRIGGER \(table)_text_added AFTER INSERT ON \(table) BEGIN
                UPDATE keys SET text_bytes = text_bytes + \(bytes("NEW.")) WHERE id = NEW.key_id;
                UPDATE accounts SET text_bytes = text_bytes + \(bytes("NEW.")) WHERE id = NEW.account_id;
            END;
            CREATE TRIGGER \(table)_text_removed AFTER DELETE ON \(table) BEGIN
                UPDATE keys SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.key_id;
                UPDATE accounts SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.account_id;
            END;
            CREATE TRIGGER \(table)_text_changed AFTER UPDATE OF \(listed) ON \(table)
                WHEN NEW.key_id = OLD.key_id AND NEW.account_id = OLD.account_id
                    AND \(bytes("NEW.")) != \(bytes("OLD.")) BEGIN
                UPDATE keys SET text_bytes = text_bytes + \(bytes("NEW.")) - (\(bytes("OLD."))) WHERE id = NEW.key_id;
                UPDATE accounts SET text_bytes = text_bytes + \(bytes("NEW.")) - (\(bytes("OLD."))) WHERE id = NEW.account_id;
            END;
            CREATE TRIGGER \(table)_text_moved AFTER UPDATE OF key_id, account_id ON \(table)
                WHEN NEW.key_id != OLD.key_id OR NEW.account_id != OLD.account_id BEGIN
                UPDATE keys SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.key_id;
                UPDATE keys SET text_bytes = text_bytes + \(bytes("NEW.")) WHERE id = NEW.key_id;
                UPDATE accounts SET text_bytes = text_bytes - (\(bytes("OLD."))) WHERE id = OLD.account_id;
                UPDATE accounts SET text_bytes = text_bytes + \(bytes("NEW.")) WHERE id = NEW.account_id;
            END;
            """
    }
}
