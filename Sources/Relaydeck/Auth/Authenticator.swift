import Clock
import SQLite

/// Turns a presented credential into a principal. Looks up the SHA-256 of the secret, so the
/// secret itself never reaches the store, and a deleted key or account is refused at once.
public final class Authenticator {
    private let store: any SessionStore
    private let credentials: CredentialCache
    private let clock: any Clock

    /// `credentials`: the cache of the principals found (SQLite's `Store.credentials`).
    public init(store: any SessionStore, credentials: CredentialCache, clock: any Clock) {
        self.store = store
        self.credentials = credentials
        self.clock = clock
    }

    /// On SQLite's store, with its cache.
    public convenience init(store: Store, clock: any Clock) {
        self.init(store: store, credentials: store.credentials, clock: clock)
    }

    /// The principal of `secret`, or nil when no live account or key has it. An OAuth access
    /// token (`mco_`) is a key principal carrying its grant, and counts only while it has not
    /// expired and only for `audience`, the resource it must have been issued for (RFC 8707;
    /// nil: OAuth is off and no access token counts). Both are checked on every call, also
    /// for a principal the cache holds. Throws only when the store cannot answer.
    public func authenticate(_ secret: Substring, audience: String? = nil) async throws -> Principal? {
        guard let kind = Secret.kind(of: secret), secret.utf8.count <= 128 else { return nil }
        let hash = Secret(text: String(secret)).hash
        let principal: Principal?
        if let known = credentials.principal(for: hash) {
            principal = known
        } else {
            principal = try await store.reading { db in try await Self.lookUp(kind, hash, db) }
            if let principal { credentials.remember(principal, for: hash) }
        }
        if let grant = principal?.grant {
            guard let audience, grant.resource == audience, clock.wallMillis < grant.expiresAt else { return nil }
        }
        return principal
    }

    private static func lookUp(_ kind: Secret.Kind, _ hash: [UInt8], _ db: any StoreSession) async throws -> Principal? {
        switch kind {
        case .accountToken:
            return try await db.firstRow(SQL.account, [.blob(hash)]) { .account(accountID: try $0.text("id")) }
        case .apiKey:
            return try await db.firstRow(SQL.key, [.blob(hash)]) { row in
                .key(KeyUse(keyID: try row.text("id"), accountID: try row.text("account_id"),
                            lastUsedAt: try row.optionalInt64("last_used_at"), lastHost: try row.optionalText("last_host"),
                            scopes: try row.scopes("scopes")))
            }
        case .accessToken:
            return try await db.firstRow(SQL.accessToken, [.blob(hash)]) { row in
                let grant = GrantUse(grantID: try row.text("grant_id"), clientName: try row.text("client_name"),
                                     resource: try row.text("resource"), expiresAt: try row.int64("expires_at"),
                                     lastUsedAt: try row.optionalInt64("grant_used_at"))
                // The connector acts as the key, with no more than both allow.
                let scopes = try row.scopes("scopes").intersection(try row.scopes("token_scopes"))
                return .key(KeyUse(keyID: try row.text("id"), accountID: try row.text("account_id"),
                                   lastUsedAt: try row.optionalInt64("last_used_at"), lastHost: try row.optionalText("last_host"),
                                   scopes: scopes, grant: grant))
            }
        case .refreshToken, .authorizationCode, .clientSecret:
            return nil
        }
    }

    /// Written for both stores (`$N`: `StoreSession`).
    enum SQL {
        static let account = "SELECT id FROM accounts WHERE token_hash = $1 AND deleted_at IS NULL"
        static let key = """
            SELECT k.id AS id, k.account_id AS account_id, k.last_used_at AS last_used_at, k.last_host AS last_host, \
            k.scopes AS scopes FROM keys k JOIN accounts a ON a.id = k.account_id \
            WHERE k.secret_hash = $1 AND k.deleted_at IS NULL AND a.deleted_at IS NULL
            """
        static let accessToken = """
            SELECT k.id AS id, k.account_id AS account_id, k.last_used_at AS last_used_at, k.last_host AS last_host, \
            k.scopes AS scopes, t.scopes AS token_scopes, t.expires_at AS expires_at, g.id AS grant_id, \
            g.client_name AS client_name, g.resource AS resource, g.last_used_at AS grant_used_at \
            FROM oauth_access_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN keys k ON k.id = g.key_id \
            JOIN accounts a ON a.id = k.account_id \
            WHERE t.token_hash = $1 AND k.deleted_at IS NULL AND a.deleted_at IS NULL
            """
    }
}
