import SQLite

/// Removes the data of deleted keys and accounts in small steps, after their credentials
/// already stopped working (`rest-api.md#keys`: "The server removes the data itself in small
/// steps after that, and finishes a deletion that stopped"). Each step is one short
/// transaction, so a large deletion never holds the loop for long. The caller runs `step()`
/// on a timer until it returns false.
public final class Purger {
    /// Rows removed per step, at most.
    public static let batchSize = 200

    private let store: any SessionStore

    public init(store: any SessionStore) {
        self.store = store
    }

    /// Removes one batch: first what deleted keys and accounts owned (tasks, questions,
    /// inbox, activity, devices, Live Activity registrations, Web Push subscriptions), then the keys and accounts
    /// that own nothing any more. Returns true when more work remains.
    @discardableResult
    public func step() async throws -> Bool {
        try await store.writing { db in
            let limit = SQLiteValue.integer(Int64(Self.batchSize))
            var owned = 0
            for sql in SQL.deleteOwned + [SQL.deleteActivity(db.dialect)] {
                owned += try await db.run(sql, limit)
            }
            let keys = try await db.run(SQL.deleteKeys, limit)
            let accounts = try await db.run(SQL.deleteAccounts, limit)
            // Removed rows may have freed keys and accounts for the next step.
            return owned > 0 || keys > 0 || accounts == Self.batchSize
        }
    }

    /// True when deleted rows wait for removal.
    public func hasWork() async throws -> Bool {
        try await store.reading { db in try await db.count(SQL.pending) > 0 }
    }

    /// Written for both stores: PostgreSQL's schema gives these tables a `rowid` column
    /// (`PostgresSchema`).
    enum SQL {
        /// A deleted key's and a deleted account's rows, in batches.
        static let deleteOwned = [
            """
            DELETE FROM live_activities WHERE (task_id, device_id) IN (SELECT l.task_id, l.device_id FROM keys k \
            JOIN tasks t ON t.key_id = k.id JOIN live_activities l ON l.task_id = t.id WHERE k.deleted_at IS NOT NULL LIMIT $1)
            """,
            ownedByDeletedKeys("tasks"), ownedByDeletedKeys("questions"), ownedByDeletedKeys("inbox_items"),
            """
            DELETE FROM live_activities WHERE (task_id, device_id) IN (SELECT l.task_id, l.device_id \
            FROM live_activities l JOIN accounts a ON a.id = l.account_id WHERE a.deleted_at IS NOT NULL LIMIT $1)
            """,
            """
            DELETE FROM devices WHERE rowid IN (SELECT d.rowid FROM devices d \
            JOIN accounts a ON a.id = d.account_id WHERE a.deleted_at IS NOT NULL LIMIT $1)
            """,
            """
            DELETE FROM web_push_subscriptions WHERE rowid IN (SELECT w.rowid FROM web_push_subscriptions w \
            JOIN accounts a ON a.id = w.account_id WHERE a.deleted_at IS NOT NULL LIMIT $1)
            """,
        ]

        /// The log has no rowid (it is keyed by key and time); SQLite is told to take the
        /// deleted keys first (`CROSS JOIN`), so each one's entries are one range. PostgreSQL
        /// has no `CROSS JOIN ... ON`; its planner orders the join itself.
        static func deleteActivity(_ dialect: StoreDialect) -> String {
            """
            DELETE FROM activity WHERE (key_id, at, id) IN (SELECT t.key_id, t.at, t.id FROM keys k \
            \(dialect == .sqlite ? "CROSS JOIN" : "JOIN") activity t ON t.key_id = k.id WHERE k.deleted_at IS NOT NULL LIMIT $1)
            """
        }

        static func ownedByDeletedKeys(_ table: String) -> String {
            """
            DELETE FROM \(table) WHERE rowid IN (SELECT t.rowid FROM keys k JOIN \(table) t ON t.key_id = k.id \
            WHERE k.deleted_at IS NOT NULL LIMIT $1)
            """
        }

        static let deleteKeys = """
            DELETE FROM keys WHERE rowid IN (SELECT k.rowid FROM keys k WHERE k.deleted_at IS NOT NULL \
            AND NOT EXISTS (SELECT 1 FROM tasks WHERE key_id = k.id) \
            AND NOT EXISTS (SELECT 1 FROM questions WHERE key_id = k.id) \
            AND NOT EXISTS (SELECT 1 FROM inbox_items WHERE key_id = k.id) \
            AND NOT EXISTS (SELECT 1 FROM activity WHERE key_id = k.id) LIMIT $1)
            """
        static let deleteAccounts = """
            DELETE FROM accounts WHERE rowid IN (SELECT a.rowid FROM accounts a WHERE a.deleted_at IS NOT NULL \
            AND NOT EXISTS (SELECT 1 FROM keys k WHERE k.account_id = a.id) \
            AND NOT EXISTS (SELECT 1 FROM devices d WHERE d.account_id = a.id) \
            AND NOT EXISTS (SELECT 1 FROM web_push_subscriptions w WHERE w.account_id = a.id) LIMIT $1)
            """
        static let pending = """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM keys WHERE deleted_at IS NOT NULL LIMIT 1) k) \
            + (SELECT count(*) FROM (SELECT 1 FROM accounts WHERE deleted_at IS NOT NULL LIMIT 1) a) AS n
            """
    }
}
