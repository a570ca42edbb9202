import Clock
import Crypto
import SQLite

/// The grants of connectors, their codes and their tokens (issue 24; OAuth 2.1 4.1 and 4.3,
/// RFC 7009). A consent becomes a code (`issueCode`); the code, traded once within a minute
/// by the client it was issued to, with the same redirect URI and PKCE verifier, becomes a
/// grant with an access token (1 h) and a refresh token (30 days); a refresh token is traded
/// once for a new pair. A code or refresh token that comes back after its trade was copied:
/// the grant made from it is revoked, its tokens with it. Every secret is kept as its SHA-256.
/// Written against `StoreSession`: the same code on SQLite and on PostgreSQL (issue 25), but
/// for `deleteAll(ofKey:in:)` and `deleteAll(ofAccount:in:)`, which run inside the synchronous
/// writes of `Keys.delete` and `Accounts.delete` (they record changes, and move with them).
public final class OAuthGrants {
    public static let codeLifetimeMillis: Int64 = 60_000
    public static let accessLifetimeMillis: Int64 = 3_600_000
    public static let refreshLifetimeMillis: Int64 = 30 * 86_400_000
    /// A traded code's row stays this long after the code expired, so that a late second use
    /// still revokes its grant.
    public static let usedCodeKeptMillis: Int64 = 3_600_000
    /// `last_used_at` of a grant changes once a minute at most, as a key's does.
    static let touchIntervalMillis: Int64 = 60_000
    /// The grants one key may have: each consent makes one, and a person reconnecting a
    /// connector again and again must not grow the table without bound.
    public static let maxPerKey = 20
    public static let fullError = DomainError.conflict("A key can have \(maxPerKey) connector grants. Remove one in the web console first.")

    let store: any SessionStore
    /// What the gate remembers of grants, updated after each commit that changes a grant.
    let credentials: CredentialCache
    let clock: any Clock
    let random: any RandomSource
    /// Told of each grant revoked (its key and ID), so the API ends the grant's waiting calls.
    public var onRevoked: ((_ keyID: String, _ grantID: String) -> Void)?

    /// `credentials`: the cache of the principals found (SQLite's `Store.credentials`).
    public init(store: any SessionStore, credentials: CredentialCache, clock: any Clock, random: any RandomSource) {
        self.store = store
        self.credentials = credentials
        self.clock = clock
        self.random = random
    }

    /// On SQLite's store, with its cache.
    public convenience init(store: Store, clock: any Clock, random: any RandomSource) {
        self.init(store: store, credentials: store.credentials, clock: clock, random: random)
    }

    /// A code for what the person approved; the code exists only in the answer. The key must
    /// be the account's and live, the client known, the scopes not empty.
    public func issueCode(_ consent: Consent) async throws -> String {
        guard !consent.scopes.isEmpty else { throw Keys.noScopeError }
        let code = Secret.generate(.authorizationCode, random: random)
        let now = clock.wallMillis
        try await store.writing { db in
            _ = try await Keys.fetch(db, accountID: consent.accountID, keyID: consent.keyID)
            guard try await db.exists(SQL.clientExists, .text(consent.clientID)) else { throw OAuthRefusal.clientUnknown }
            try await db.lockKey(consent.keyID)
            if try await db.count(SQL.countForKey, .text(consent.keyID)) >= Self.maxPerKey { throw Self.fullError }
            try await db.run(
                SQL.insertCode, .blob(code.hash), .text(consent.clientID), .text(consent.accountID), .text(consent.keyID),
                .integer(consent.scopes.bits), .text(consent.redirectURI), .text(consent.codeChallenge),
                .text(consent.resource), .integer(now + Self.codeLifetimeMillis))
        }
        return code.text
    }

    /// The account's grants (of one key, or all), newest first.
    public func list(accountID: String, keyID: String? = nil) async throws -> [Grant] {
        try await store.reading { db in
            if let keyID { return try await db.rows(SQL.listOfKey, [.text(accountID), .text(keyID)], Grant.init) }
            return try await db.rows(SQL.listOfAccount, [.text(accountID)], Grant.init)
        }
    }

    /// Removes a grant of the account: its tokens stop working when this returns.
    public func delete(accountID: String, grantID: String) async throws {
        let keyID = try await store.writing { db -> String in
            guard let keyID = try await db.firstRow(SQL.grantKey, [.text(grantID), .text(accountID)], { try $0.text("key_id") }) else {
                throw DomainError.notFound("Grant not found.")
            }
            try await Self.revoke(grantID, in: db)
            return keyID
        }
        revoked(keyID: keyID, grantID: grantID)
    }

    /// Notes a request of the grant: `last_used_at` when null or a minute old.
    public func recordUse(_ use: KeyUse) async throws {
        guard let grant = use.grant else { return }
        let now = clock.wallMillis
        guard grant.lastUsedAt.map({ now - $0 >= Self.touchIntervalMillis }) ?? true else { return }
        try await store.writing { db in try await db.run(SQL.touchGrant, .integer(now), .text(grant.grantID)) }
        credentials.updateGrantUse(grant.grantID, lastUsedAt: now)
    }

    /// Forgets what a revoked grant left in memory, then tells the API.
    func revoked(keyID: String, grantID: String) {
        credentials.forgetGrant(grantID)
        onRevoked?(keyID, grantID)
    }

    /// Deletes a grant and its tokens (its traded codes stay until they expire: a code coming
    /// back still finds no grant to revoke, and is refused).
    static func revoke(_ grantID: String, in db: any StoreSession) async throws {
        for sql in SQL.deleteGrant { try await db.run(sql, .text(grantID)) }
    }

    /// Removes the grants of a key being deleted, in its deletion's write (the key's credential
    /// cache entries, the grants' tokens among them, are forgotten by the caller).
    static func deleteAll(ofKey keyID: String, in db: any StoreSession) async throws {
        for grantID in try await db.rows(SQL.grantsOfKey, [.text(keyID)], { try $0.text("id") }) {
            try await revoke(grantID, in: db)
        }
        try await db.run(SQL.deleteCodesOfKey, .text(keyID))
    }

    /// Removes every grant of an account being deleted (in `Accounts.delete`'s write).
    static func deleteAll(ofAccount accountID: String, in db: any StoreSession) async throws {
        for grantID in try await db.rows(SQL.grantsOfAccount, [.text(accountID)], { try $0.text("id") }) {
            try await revoke(grantID, in: db)
        }
        try await db.run(SQL.deleteCodesOfAccount, .text(accountID))
    }

    /// A new access token and refresh token for `grantID`, written; the secrets exist only in
    /// the answer.
    func issueTokens(_ db: any StoreSession, grantID: String, access: ScopeSet, refresh: ScopeSet, now: Int64)
        async throws -> IssuedTokens {
        let accessToken = Secret.generate(.accessToken, random: random)
        let refreshToken = Secret.generate(.refreshToken, random: random)
        try await db.run(SQL.insertAccess, .blob(accessToken.hash), .text(grantID), .integer(access.bits),
                         .integer(now + Self.accessLifetimeMillis))
        try await db.run(SQL.insertRefresh, .blob(refreshToken.hash), .text(grantID), .integer(refresh.bits),
                         .integer(now + Self.refreshLifetimeMillis))
        return IssuedTokens(accessToken: accessToken.text, refreshToken: refreshToken.text,
                            expiresIn: Self.accessLifetimeMillis / 1000, scopes: access, grantID: grantID)
    }
}
