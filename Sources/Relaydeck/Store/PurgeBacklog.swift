import SQLite

/// What `/metrics` says of the purge's work still waiting (`Purger`): the deleted keys and
/// accounts not removed yet, the text their rows still hold, and when the oldest of them
/// was deleted. Each read goes through the partial index of deleted rows (`keys_deleted`,
/// `accounts_deleted`, which hold only those) and touches at most `cap` of them, whatever
/// the tables hold: a larger backlog reads as `cap`.
public struct PurgeBacklog: Equatable, Sendable {
    public static let cap = 10_000

    /// Deleted keys whose rows (tasks, questions, inbox, activity) are not all removed yet.
    public let keys: Int
    /// Deleted accounts not removed yet (their keys and devices go first).
    public let accounts: Int
    /// The text bytes the pending keys' tasks, questions and inbox items still hold
    /// (`keys.text_bytes`, which the triggers keep through the purge too): it falls as the
    /// purge works, while `keys` falls only as each key's last row goes.
    public let textBytes: Int
    /// When the oldest pending deletion was made, wall-clock milliseconds; nil when none waits.
    public let oldestDeletedAt: Int64?

    public init(keys: Int, accounts: Int, textBytes: Int, oldestDeletedAt: Int64?) {
        self.keys = keys
        self.accounts = accounts
        self.textBytes = textBytes
        self.oldestDeletedAt = oldestDeletedAt
    }

    /// SQLite is told the partial index of deleted rows; PostgreSQL's planner chooses, and
    /// its `sum` of BIGINTs is a `numeric`, cast back.
    static func pendingKeys(_ dialect: StoreDialect) -> String {
        let (index, bytes) = dialect == .sqlite ? (" INDEXED BY keys_deleted", "coalesce(sum(text_bytes), 0)")
            : ("", "coalesce(sum(text_bytes), 0)::bigint")
        return """
            SELECT count(*) AS n, \(bytes) AS bytes FROM \
            (SELECT text_bytes FROM keys\(index) WHERE deleted_at IS NOT NULL LIMIT $1) k
            """
    }
    static func pendingAccounts(_ dialect: StoreDialect) -> String {
        """
        SELECT count(*) AS n FROM \
        (SELECT 1 FROM accounts\(dialect == .sqlite ? " INDEXED BY accounts_deleted" : "") WHERE deleted_at IS NOT NULL LIMIT $1) a
        """
    }
    static func oldestKey(_ dialect: StoreDialect) -> String {
        """
        SELECT deleted_at FROM keys\(dialect == .sqlite ? " INDEXED BY keys_deleted" : "") WHERE deleted_at IS NOT NULL \
        ORDER BY deleted_at LIMIT 1
        """
    }
    static func oldestAccount(_ dialect: StoreDialect) -> String {
        """
        SELECT deleted_at FROM accounts\(dialect == .sqlite ? " INDEXED BY accounts_deleted" : "") WHERE deleted_at IS NOT NULL \
        ORDER BY deleted_at LIMIT 1
        """
    }

    public static func read(_ store: any SessionStore, cap: Int = PurgeBacklog.cap) async throws -> PurgeBacklog {
        try await store.reading { db in
            let limit = [SQLiteValue.integer(Int64(cap))]
            let dialect = db.dialect
            let (keys, bytes) = try await db.firstRow(pendingKeys(dialect), limit) { (try $0.int("n"), try $0.int("bytes")) }
                ?? (0, 0)
            let accounts = try await db.firstRow(pendingAccounts(dialect), limit) { try $0.int("n") } ?? 0
            let oldest = [try await db.firstRow(oldestKey(dialect), []) { try $0.int64("deleted_at") },
                          try await db.firstRow(oldestAccount(dialect), []) { try $0.int64("deleted_at") }].compactMap { $0 }.min()
            return PurgeBacklog(keys: keys, accounts: accounts, textBytes: bytes, oldestDeletedAt: oldest)
        }
    }
}
