import SQLite

/// Turns a presented credential into a principal. Looks up the SHA-256 of the secret, so the
/// secret itself never reaches the store, and a deleted key or account is refused at once.
public final class Authenticator {
    private let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// The principal of `secret`, or nil when no live account or key has it. Throws only
    /// when the store cannot answer.
    public func authenticate(_ secret: Substring) throws -> Principal? {
        guard let kind = Secret.kind(of: secret), secret.utf8.count <= 128 else { return nil }
        let hash = Secret(text: String(secret)).hash
        if let known = store.credentials.principal(for: hash) { return known }
        let principal: Principal? = try store.read { db in
            switch kind {
            case .accountToken:
                let statement = try db.statement(SQL.account)
                try statement.bind(hash, at: 1)
                defer { statement.reset() }
                guard let row = try statement.nextRow() else { return nil }
                return .account(accountID: try row.text("id"))
            case .apiKey:
                let statement = try db.statement(SQL.key)
                try statement.bind(hash, at: 1)
                defer { statement.reset() }
                guard let row = try statement.nextRow() else { return nil }
                return .key(KeyUse(keyID: try row.text("id"), accountID: try row.text("account_id"),
                                   lastUsedAt: try row.optionalInt64("last_used_at"), lastHost: try row.optionalText("last_host"),
                                   scopes: try row.scopes("scopes")))
            }
        }
        if let principal { store.credentials.remember(principal, for: hash) }
        return principal
    }

    enum SQL {
        static let account = "SELECT id FROM accounts WHERE token_hash = ? AND deleted_at IS NULL"
        static let key = """
            SELECT k.id AS id, k.account_id AS account_id, k.last_used_at AS last_used_at, k.last_host AS last_host, \
            k.scopes AS scopes FROM keys k JOIN accounts a ON a.id = k.account_id \
            WHERE k.secret_hash = ? AND k.deleted_at IS NULL AND a.deleted_at IS NULL
            """
    }
}
