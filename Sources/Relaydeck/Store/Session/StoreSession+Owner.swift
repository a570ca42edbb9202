import SQLite

/// A write that counts before it adds (20 devices an account, 20 keys, 20 pending questions a
/// key, 1,000 open tasks, 20 grants) keeps its cap only if no other writer counts the same rows
/// between its count and its COMMIT. SQLite has one writer at a time, so nothing is needed
/// there. PostgreSQL runs writers side by side (several requests of one node, several nodes),
/// each counting what is committed: the writer first locks the row of what owns the counted
/// rows, and holds that lock to its COMMIT, so the writers of one owner count one after the
/// other and those of different owners do not wait for each other.
extension StoreSession {
    /// Locks the account's row until the write ends (PostgreSQL); nothing in SQLite.
    public func lockAccount(_ accountID: String) async throws {
        guard dialect == .postgres else { return }
        try await run(OwnerLock.account, .text(accountID))
    }

    /// Locks the rows of the account's keys (in the order of their IDs), then the account's:
    /// for a write that changes both, in the order the others take them (key before account),
    /// so that it never waits for one of them while that one waits for it.
    public func lockAccountWithKeys(_ accountID: String) async throws {
        guard dialect == .postgres else { return }
        try await run(OwnerLock.keysOfAccount, .text(accountID))
        try await run(OwnerLock.account, .text(accountID))
    }

    /// Locks the key's row until the write ends (PostgreSQL); nothing in SQLite.
    public func lockKey(_ keyID: String) async throws {
        guard dialect == .postgres else { return }
        try await run(OwnerLock.key, .text(keyID))
    }
}

/// PostgreSQL's statements of `lockAccount` and `lockKey`.
enum OwnerLock {
    static let account = "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE"
    static let key = "SELECT 1 FROM keys WHERE id = $1 FOR UPDATE"
    static let keysOfAccount = "SELECT 1 FROM keys WHERE account_id = $1 ORDER BY id FOR UPDATE"
}
