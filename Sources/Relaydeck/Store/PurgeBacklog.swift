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

    static let pendingKeys = """
        SELECT count(*) AS n, coalesce(sum(text_bytes), 0) AS bytes FROM \
        (SELECT text_bytes FROM keys INDEXED BY keys_deleted WHERE deleted_at IS NOT NULL LIMIT $1)
        """
    static let pendingAccounts = """
        SELECT count(*) AS n FROM \
        (SELECT 1 FROM accounts INDEXED BY accounts_deleted WHERE deleted_at IS NOT NULL LIMIT $1)
        """
    static let oldestKey = """
        SELECT deleted_at FROM keys INDEXED BY keys_deleted WHERE deleted_at IS NOT NULL ORDER BY deleted_at LIMIT 1
        """
    static let oldestAccount = """
        SELECT deleted_at FROM accounts INDEXED BY accounts_deleted WHERE deleted_at IS NOT NULL ORDER BY deleted_at LIMIT 1
        """

    public static func read(_ store: Store, cap: Int = PurgeBacklog.cap) throws -> PurgeBacklog {
        try store.read { db in
            let limit = [SQLiteValue.integer(Int64(cap))]
            let (keys, bytes) = try db.firstRow(pendingKeys, limit) { (try $0.int("n"), try $0.int("bytes")) } ?? (0, 0)
            let accounts = try db.firstRow(pendingAccounts, limit) { try $0.int("n") } ?? 0
            let oldest = [try db.firstRow(oldestKey, []) { try $0.int64("deleted_at") },
                          try db.firstRow(oldestAccount, []) { try $0.int64("deleted_at") }].compactMap { $0 }.min()
            return PurgeBacklog(keys: keys, accounts: accounts, textBytes: bytes, oldestDeletedAt: oldest)
        }
    }
}
