extension OAuthGrants {
    /// Written for both stores (`$N`, each first in order: `StoreSession`). `deleteAll`'s
    /// statements run on SQLite's `Database` too, which binds `$N` the same way.
    enum SQL {
        static let clientExists = "SELECT 1 FROM oauth_clients WHERE id = $1"
        static let countForKey = "SELECT count(*) AS n FROM oauth_grants WHERE key_id = $1"
        static let insertCode = """
            INSERT INTO oauth_codes (code_hash, client_id, account_id, key_id, scopes, redirect_uri, code_challenge, \
            resource, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """
        static let code = """
            SELECT client_id, account_id, key_id, scopes, redirect_uri, code_challenge, resource, expires_at, grant_id \
            FROM oauth_codes WHERE code_hash = $1
            """
        static let markCodeUsed = "UPDATE oauth_codes SET grant_id = $1 WHERE code_hash = $2"
        static let insertGrant = """
            INSERT INTO oauth_grants (id, account_id, key_id, client_id, client_name, scopes, resource, created_at) \
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """
        static let grantColumns = "id, account_id, key_id, client_id, client_name, scopes, resource, created_at, last_used_at"
        static let listOfKey = """
            SELECT \(grantColumns) FROM oauth_grants WHERE account_id = $1 AND key_id = $2 ORDER BY created_at DESC, id DESC
            """
        static let listOfAccount = """
            SELECT \(grantColumns) FROM oauth_grants WHERE account_id = $1 ORDER BY created_at DESC, id DESC
            """
        static let grantKey = "SELECT key_id FROM oauth_grants WHERE id = $1 AND account_id = $2"
        static let grantKeyOnly = "SELECT key_id FROM oauth_grants WHERE id = $1"
        static let grantsOfKey = "SELECT id FROM oauth_grants WHERE key_id = $1"
        static let grantsOfAccount = "SELECT id FROM oauth_grants WHERE account_id = $1"
        static let deleteCodesOfKey = "DELETE FROM oauth_codes WHERE key_id = $1"
        static let deleteCodesOfAccount = "DELETE FROM oauth_codes WHERE account_id = $1"
        static let deleteGrant = [
            "DELETE FROM oauth_access_tokens WHERE grant_id = $1",
            "DELETE FROM oauth_refresh_tokens WHERE grant_id = $1",
            "DELETE FROM oauth_grants WHERE id = $1",
        ]
        static let touchGrant = "UPDATE oauth_grants SET last_used_at = $1 WHERE id = $2"
        static let insertAccess = "INSERT INTO oauth_access_tokens (token_hash, grant_id, scopes, expires_at) VALUES ($1, $2, $3, $4)"
        static let insertRefresh = "INSERT INTO oauth_refresh_tokens (token_hash, grant_id, scopes, expires_at) VALUES ($1, $2, $3, $4)"
        /// A refresh token with its grant, whose key is live.
        static let refresh = """
            SELECT r.grant_id AS grant_id, g.key_id AS key_id, g.client_id AS client_id, r.scopes AS scopes, \
            r.expires_at AS expires_at, r.used_at AS used_at FROM oauth_refresh_tokens r \
            JOIN oauth_grants g ON g.id = r.grant_id JOIN keys k ON k.id = g.key_id \
            WHERE r.token_hash = $1 AND k.deleted_at IS NULL
            """
        static let spendRefresh = "UPDATE oauth_refresh_tokens SET used_at = $1 WHERE token_hash = $2"
        static let refreshOwner = """
            SELECT g.key_id AS key_id, g.id AS grant_id, g.client_id AS client_id FROM oauth_refresh_tokens r \
            JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_hash = $1
            """
        static let accessOwner = """
            SELECT g.key_id AS key_id, g.id AS grant_id, g.client_id AS client_id FROM oauth_access_tokens t \
            JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1
            """
        static let deleteAccess = "DELETE FROM oauth_access_tokens WHERE token_hash = $1"
    }
}
