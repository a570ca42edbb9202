import SQLite

/// Removes the data of deleted keys and accounts in small steps, after their credentials
/// already stopped working (`rest-api.md#keys`: "The server removes the data itself in small
/// steps after that, and finishes a deletion that stopped"). Each step is one short
/// transaction, so a large deletion never holds the loop for long. The caller runs `step()`
/// on a timer until it returns false.
public final class Purger {
    /// Rows removed per step, at most.
    public static let batchSize = 200

    private let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// Removes one batch. Returns true when more work remains.
    @discardableResult
    public func step() throws -> Bool {
        try store.write { db in
            // Keys first (and, in later schema versions, their tasks, questions, inbox and
            // activity before them), then accounts with no key left.
            let keys = try db.statement(SQL.deleteKeys).run(.integer(Int64(Self.batchSize)))
            let accounts = try db.statement(SQL.deleteAccounts).run(.integer(Int64(Self.batchSize)))
            // Removed keys may have freed their accounts for the next step.
            return keys > 0 || accounts == Self.batchSize
        }
    }

    /// True when deleted rows wait for removal.
    public func hasWork() throws -> Bool {
        try store.read { db in
            let statement = try db.statement(SQL.pending)
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int(0) > 0
        }
    }

    enum SQL {
        static let deleteKeys = """
            DELETE FROM keys WHERE rowid IN (SELECT rowid FROM keys WHERE deleted_at IS NOT NULL LIMIT ?)
            """
        static let deleteAccounts = """
            DELETE FROM accounts WHERE rowid IN (SELECT a.rowid FROM accounts a WHERE a.deleted_at IS NOT NULL \
            AND NOT EXISTS (SELECT 1 FROM keys k WHERE k.account_id = a.id) LIMIT ?)
            """
        static let pending = """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM keys WHERE deleted_at IS NOT NULL LIMIT 1)) \
            + (SELECT count(*) FROM (SELECT 1 FROM accounts WHERE deleted_at IS NOT NULL LIMIT 1))
            """
    }
}
