import Clock
import Crypto
import SQLite

extension OAuthGrants {
    /// Trades a code (OAuth 2.1 4.1.3): once, within `codeLifetimeMillis`, by the client it was
    /// issued to, with the redirect URI of its request and the PKCE verifier of its challenge.
    /// A code traded before revokes the grant it made (the revocation is written even though
    /// the trade is refused).
    public func exchange(code: String, client: OAuthClient, redirectURI: String, verifier: String) async throws -> IssuedTokens {
        guard code.hasPrefix(Secret.Kind.authorizationCode.prefix), code.utf8.count <= 128 else { throw OAuthRefusal.codeUnknown }
        let now = clock.wallMillis
        let outcome = try await store.writing { db -> Result<IssuedTokens, OAuthRefusal> in
            guard let stored = try await db.firstRow(SQL.code, [.blob(SHA256.hash(code))], StoredCode.init) else {
                return .failure(.codeUnknown)
            }
            if let grantID = stored.grantID {
                if let keyID = try await db.firstRow(SQL.grantKeyOnly, [.text(grantID)], { try $0.text("key_id") }) {
                    try await Self.revoke(grantID, in: db)
                    return .failure(.codeReused(keyID: keyID, grantID: grantID))
                }
                return .failure(.codeUnknown)
            }
            guard stored.clientID == client.id else { return .failure(.codeForAnotherClient) }
            guard now < stored.expiresAt else { return .failure(.codeUnknown) }
            guard stored.redirectURI == redirectURI else { return .failure(.redirectMismatch) }
            guard PKCE.verifies(verifier, challenge: stored.challenge) else { return .failure(.verifierWrong) }
            // The key may have gone, or lost scopes, since the consent.
            guard let key = try? await Keys.fetch(db, accountID: stored.accountID, keyID: stored.keyID) else {
                return .failure(.codeUnknown)
            }
            let grantID = Identifier.make("grt_", millis: now, random: random)
            try await db.run(SQL.insertGrant, .text(grantID), .text(stored.accountID), .text(key.id), .text(client.id),
                             .text(client.name), .integer(stored.scopes.bits), .text(stored.resource), .integer(now))
            try await db.run(SQL.markCodeUsed, .text(grantID), .blob(SHA256.hash(code)))
            return .success(try await issueTokens(db, grantID: grantID, access: stored.scopes, refresh: stored.scopes, now: now))
        }
        return try settle(outcome)
    }

    /// Trades a refresh token for a new pair (OAuth 2.1 4.3): the old one is spent, and a use
    /// of it after that revokes the grant. `scopes` (nil: the grant's) may narrow the new
    /// access token, never widen it (RFC 6749 6); the new refresh token keeps the grant's.
    public func refresh(token: String, client: OAuthClient, scopes: ScopeSet?) async throws -> IssuedTokens {
        guard token.hasPrefix(Secret.Kind.refreshToken.prefix), token.utf8.count <= 128 else { throw OAuthRefusal.refreshUnknown }
        let hash = SHA256.hash(token)
        let now = clock.wallMillis
        let outcome = try await store.writing { db -> Result<IssuedTokens, OAuthRefusal> in
            guard let stored = try await db.firstRow(SQL.refresh, [.blob(hash)], StoredRefresh.init) else {
                return .failure(.refreshUnknown)
            }
            if stored.usedAt != nil {
                try await Self.revoke(stored.grantID, in: db)
                return .failure(.refreshReused(keyID: stored.keyID, grantID: stored.grantID))
            }
            guard stored.clientID == client.id else { return .failure(.refreshForAnotherClient) }
            guard now < stored.expiresAt else { return .failure(.refreshUnknown) }
            let asked = scopes ?? stored.scopes
            guard asked.subtracting(stored.scopes).isEmpty, !asked.isEmpty else { return .failure(.scopeEscalation) }
            try await db.run(SQL.spendRefresh, .integer(now), .blob(hash))
            try await db.run(SQL.touchGrant, .integer(now), .text(stored.grantID))
            return .success(try await issueTokens(db, grantID: stored.grantID, access: asked, refresh: stored.scopes, now: now))
        }
        return try settle(outcome)
    }

    /// RFC 7009: a refresh token revokes its whole grant, an access token itself. A token that
    /// is unknown, expired, or another client's is left alone without saying so (2.2: the
    /// answer is the same, so a client learns nothing of tokens not its own).
    public func revoke(token: String, client: OAuthClient) async throws {
        guard token.utf8.count <= 128, let kind = Self.kind(of: token) else { return }
        let hash = SHA256.hash(token)
        let ended = try await store.writing { db -> (keyID: String, grantID: String, whole: Bool)? in
            let sql = kind == .refreshToken ? SQL.refreshOwner : SQL.accessOwner
            guard let owner = try await db.firstRow(sql, [.blob(hash)], { row in
                (keyID: try row.text("key_id"), grantID: try row.text("grant_id"), clientID: try row.text("client_id"))
            }), owner.clientID == client.id else { return nil }
            if kind == .refreshToken {
                try await Self.revoke(owner.grantID, in: db)
            } else {
                try await db.run(SQL.deleteAccess, .blob(hash))
            }
            return (owner.keyID, owner.grantID, kind == .refreshToken)
        }
        guard let ended else { return }
        if ended.whole {
            revoked(keyID: ended.keyID, grantID: ended.grantID)
        } else {
            // The grant goes on; the cache forgets its tokens and reads the others again.
            credentials.forgetGrant(ended.grantID)
        }
    }

    private static func kind(of token: String) -> Secret.Kind? {
        if token.hasPrefix(Secret.Kind.refreshToken.prefix) { return .refreshToken }
        if token.hasPrefix(Secret.Kind.accessToken.prefix) { return .accessToken }
        return nil
    }

    /// Written refusals (a revocation) are committed with the write; the refusal is thrown
    /// after it, and a revoked grant is forgotten and announced.
    private func settle(_ outcome: Result<IssuedTokens, OAuthRefusal>) throws -> IssuedTokens {
        switch outcome {
        case .success(let tokens):
            return tokens
        case .failure(let refusal):
            switch refusal {
            case .codeReused(let keyID, let grantID), .refreshReused(let keyID, let grantID):
                revoked(keyID: keyID, grantID: grantID)
            default:
                break
            }
            throw refusal
        }
    }
}

private struct StoredCode {
    let clientID: String
    let accountID: String
    let keyID: String
    let scopes: ScopeSet
    let redirectURI: String
    let challenge: String
    let resource: String
    let expiresAt: Int64
    let grantID: String?

    init(row: any StoreRow) throws {
        clientID = try row.text("client_id")
        accountID = try row.text("account_id")
        keyID = try row.text("key_id")
        scopes = try row.scopes("scopes")
        redirectURI = try row.text("redirect_uri")
        challenge = try row.text("code_challenge")
        resource = try row.text("resource")
        expiresAt = try row.int64("expires_at")
        grantID = try row.optionalText("grant_id")
    }
}

private struct StoredRefresh {
    let grantID: String
    let keyID: String
    let clientID: String
    let scopes: ScopeSet
    let expiresAt: Int64
    let usedAt: Int64?

    init(row: any StoreRow) throws {
        grantID = try row.text("grant_id")
        keyID = try row.text("key_id")
        clientID = try row.text("client_id")
        scopes = try row.scopes("scopes")
        expiresAt = try row.int64("expires_at")
        usedAt = try row.optionalInt64("used_at")
    }
}
