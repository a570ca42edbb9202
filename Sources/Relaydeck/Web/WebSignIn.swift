import Clock
import Crypto
import SQLite

/// How a person signs in to the web console, and stays signed in: one-time login links made
/// by the operator's command, browser sessions, and the passkeys that sign in later. Every
/// secret (a link's token, a session's cookie value) is kept as its SHA-256 only and never
/// logged. Nothing here is cached in memory: the operator's command writes links from
/// another process, and the server must see them at once.
public final class WebSignIn {
    /// A login link works once, for 15 minutes.
    public static let linkLifetimeMillis: Int64 = 15 * 60_000
    /// A session ends after 30 days unused.
    public static let sessionIdleMillis: Int64 = 30 * 24 * 3_600_000
    /// A session's `last_used_at` is written again only after this much time: a page that
    /// makes a request a second does not make a write a second.
    static let touchIntervalMillis: Int64 = 60_000

    private let store: any SessionStore
    private let clock: any Clock
    private let random: any RandomSource

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource) {
        self.store = store
        self.clock = clock
        self.random = random
    }

    // MARK: Login links

    /// A new login token for the account (`mcl_` and 43 letters and digits: 256 bits); the
    /// token exists only in the answer.
    public func createLoginToken(accountID: String) async throws -> String {
        let token = "mcl_" + random.alphanumeric(43)
        let now = clock.wallMillis
        try await store.writing { db in
            _ = try await Accounts.fetch(db, accountID)
            try await db.run(SQL.deleteExpiredLinks, .integer(now))
            try await db.run(SQL.insertLink, .blob(SHA256.hash(token)), .text(accountID), .integer(now + Self.linkLifetimeMillis))
        }
        return token
    }

    /// The account of `token`, which is used up by this call whatever the answer; nil when it
    /// is unknown, used, expired, or its account is deleted.
    public func redeemLoginToken(_ token: String) async throws -> String? {
        guard token.hasPrefix("mcl_"), token.utf8.count <= 128 else { return nil }
        let hash = SHA256.hash(token)
        let now = clock.wallMillis
        return try await store.writing { db in
            let found = try await db.firstRow(SQL.selectLink, [.blob(hash)]) { row in
                (accountID: try row.text("account_id"), expiresAt: try row.int64("expires_at"), deleted: try row.bool("deleted"))
            }
            guard let found else { return nil }
            try await db.run(SQL.deleteLink, .blob(hash))
            return found.expiresAt > now && !found.deleted ? found.accountID : nil
        }
    }

    // MARK: Sessions

    /// A new session of the account; the secret (the cookie's value) exists only in the answer.
    public func createSession(accountID: String, userAgent: String?) async throws -> (session: WebSession, secret: String) {
        let now = clock.wallMillis
        let secret = "mcs_" + random.alphanumeric(43)
        let session = WebSession(id: Identifier.make("wss_", millis: now, random: random), accountID: accountID,
                                 createdAt: now, lastUsedAt: now, userAgent: userAgent.flatMap(Self.userAgentText))
        try await store.writing { db in
            _ = try await Accounts.fetch(db, accountID)
            try await db.run(SQL.deleteIdleSessions, .integer(now - Self.sessionIdleMillis))
            try await db.run(SQL.insertSession, .text(session.id), .blob(SHA256.hash(secret)), .text(accountID),
                             .integer(now), .integer(now), session.userAgent.map { .text($0) } ?? .null)
        }
        return (session, secret)
    }

    /// The live session of a cookie's value: nil when unknown, removed, idle for 30 days, or
    /// its account deleted. A session used now gets its `last_used_at` (at most once a minute).
    public func session(secret: String) async throws -> WebSession? {
        guard secret.hasPrefix("mcs_"), secret.utf8.count <= 128 else { return nil }
        let now = clock.wallMillis
        let hash = SHA256.hash(secret)
        guard let session = try await store.reading({ db in
            try await db.firstRow(SQL.selectSession, [.blob(hash), .integer(now - Self.sessionIdleMillis)], Self.session)
        }) else { return nil }
        guard now - session.lastUsedAt >= Self.touchIntervalMillis else { return session }
        do {
            try await store.writing { db in try await db.run(SQL.touchSession, .integer(now), .text(session.id)) }
        } catch StoreError.unavailable {
            // Another process holds the write lock: a later request notes the use.
        }
        return WebSession(id: session.id, accountID: session.accountID, createdAt: session.createdAt,
                          lastUsedAt: now, userAgent: session.userAgent)
    }

    /// The account's live sessions, newest first.
    public func sessions(accountID: String) async throws -> [WebSession] {
        let cutoff = clock.wallMillis - Self.sessionIdleMillis
        return try await store.reading { db in
            try await db.rows(SQL.selectSessions, [.text(accountID), .integer(cutoff)], Self.session)
        }
    }

    /// Ends one session of the account (sign-out, or removed from the list).
    public func deleteSession(accountID: String, id: String) async throws {
        try await store.writing { db in
            guard try await db.run(SQL.deleteSession, .text(id), .text(accountID)) == 1 else {
                throw DomainError.notFound("Session not found.")
            }
        }
    }

    // MARK: Passkeys

    /// Keeps a verified passkey. A credential ID registered already (by any account) is a
    /// conflict.
    public func addPasskey(accountID: String, credentialID: [UInt8], publicKey: [UInt8], signCount: UInt32,
                           name: CheckedText) async throws -> Passkey {
        let now = clock.wallMillis
        let passkey = Passkey(id: Identifier.make("psk_", millis: now, random: random), accountID: accountID,
                              credentialID: credentialID, publicKey: publicKey, signCount: signCount,
                              name: name.value, createdAt: now, lastUsedAt: nil)
        try await store.writing { db in
            _ = try await Accounts.fetch(db, accountID)
            guard try await !db.exists(SQL.selectCredential, .blob(credentialID)) else {
                throw DomainError.conflict("This passkey is registered already.")
            }
            try await db.run(SQL.insertPasskey, .text(passkey.id), .text(accountID), .blob(credentialID), .blob(publicKey),
                             .integer(Int64(signCount)), .text(passkey.name), .integer(now))
        }
        return passkey
    }

    public func passkeys(accountID: String) async throws -> [Passkey] {
        try await store.reading { db in try await db.rows(SQL.selectPasskeys, [.text(accountID)], Self.passkey) }
    }

    /// The passkey of a credential ID, if an account that is not deleted has it.
    public func passkey(credentialID: [UInt8]) async throws -> Passkey? {
        try await store.reading { db in try await db.firstRow(SQL.selectPasskey, [.blob(credentialID)], Self.passkey) }
    }

    public func deletePasskey(accountID: String, id: String) async throws {
        try await store.writing { db in
            guard try await db.run(SQL.deletePasskey, .text(id), .text(accountID)) == 1 else {
                throw DomainError.notFound("Passkey not found.")
            }
        }
    }

    /// After a verified sign-in: the new counter and the time. The counter is written only
    /// when it still is above the stored one, so two sign-ins racing with one assertion cannot
    /// both pass; false when it is not (the caller refuses the sign-in).
    public func recordPasskeyUse(_ passkey: Passkey, signCount: UInt32) async throws -> Bool {
        let now = clock.wallMillis
        return try await store.writing { db in
            try await db.run(SQL.usePasskey, .integer(Int64(signCount)), .integer(now), .text(passkey.id),
                             .integer(Int64(passkey.signCount))) == 1
        }
    }

    // MARK: Rows

    static func session(_ row: any StoreRow) throws -> WebSession {
        WebSession(id: try row.text("id"), accountID: try row.text("account_id"), createdAt: try row.int64("created_at"),
                   lastUsedAt: try row.int64("last_used_at"), userAgent: try row.optionalText("user_agent"))
    }

    static func passkey(_ row: any StoreRow) throws -> Passkey {
        Passkey(id: try row.text("id"), accountID: try row.text("account_id"), credentialID: try row.blob("credential_id"),
                publicKey: try row.blob("public_key"), signCount: UInt32(truncatingIfNeeded: try row.int64("sign_count")),
                name: try row.text("name"), createdAt: try row.int64("created_at"), lastUsedAt: try row.optionalInt64("last_used_at"))
    }

    /// The browser's `User-Agent` as the session list shows it: one line, at most 200 characters.
    static func userAgentText(_ raw: String) -> String? {
        let line = TextRules.oneLine(raw)
        guard !line.isEmpty, !TextRules.hasControlCharacters(line) else { return nil }
        return String(line.prefix(200))
    }

    /// What an account's deletion removes with it, in the same transaction (`Accounts.delete`).
    static func deleteAll(of accountID: String, in db: any StoreSession) async throws {
        try await db.run(SQL.deleteLinksOfAccount, .text(accountID))
        try await db.run(SQL.deleteSessionsOfAccount, .text(accountID))
        try await db.run(SQL.deletePasskeysOfAccount, .text(accountID))
    }

    /// Written for both stores (`$N`, each first in order: `StoreSession`).
    enum SQL {
        static let insertLink = "INSERT INTO web_login_links (token_hash, account_id, expires_at) VALUES ($1, $2, $3)"
        static let selectLink = """
            SELECT l.account_id AS account_id, l.expires_at AS expires_at, a.deleted_at IS NOT NULL AS deleted \
            FROM web_login_links l JOIN accounts a ON a.id = l.account_id WHERE l.token_hash = $1
            """
        static let deleteLink = "DELETE FROM web_login_links WHERE token_hash = $1"
        static let deleteExpiredLinks = "DELETE FROM web_login_links WHERE expires_at <= $1"
        static let deleteLinksOfAccount = "DELETE FROM web_login_links WHERE account_id = $1"

        static let sessionColumns = "s.id AS id, s.account_id AS account_id, s.created_at AS created_at, s.last_used_at AS last_used_at, s.user_agent AS user_agent"
        static let insertSession = """
            INSERT INTO web_sessions (id, secret_hash, account_id, created_at, last_used_at, user_agent) VALUES ($1, $2, $3, $4, $5, $6)
            """
        static let selectSession = """
            SELECT \(sessionColumns) FROM web_sessions s JOIN accounts a ON a.id = s.account_id \
            WHERE s.secret_hash = $1 AND s.last_used_at > $2 AND a.deleted_at IS NULL
            """
        static let selectSessions = """
            SELECT \(sessionColumns) FROM web_sessions s WHERE s.account_id = $1 AND s.last_used_at > $2 ORDER BY s.created_at DESC, s.id DESC
            """
        static let touchSession = "UPDATE web_sessions SET last_used_at = $1 WHERE id = $2"
        static let deleteSession = "DELETE FROM web_sessions WHERE id = $1 AND account_id = $2"
        static let deleteIdleSessions = "DELETE FROM web_sessions WHERE last_used_at <= $1"
        static let deleteSessionsOfAccount = "DELETE FROM web_sessions WHERE account_id = $1"

        static let passkeyColumns = """
            p.id AS id, p.account_id AS account_id, p.credential_id AS credential_id, p.public_key AS public_key, \
            p.sign_count AS sign_count, p.name AS name, p.created_at AS created_at, p.last_used_at AS last_used_at
            """
        static let insertPasskey = """
            INSERT INTO passkeys (id, account_id, credential_id, public_key, sign_count, name, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
            """
        static let selectCredential = "SELECT 1 FROM passkeys WHERE credential_id = $1"
        static let selectPasskeys = "SELECT \(passkeyColumns) FROM passkeys p WHERE p.account_id = $1 ORDER BY p.created_at, p.id"
        static let selectPasskey = """
            SELECT \(passkeyColumns) FROM passkeys p JOIN accounts a ON a.id = p.account_id \
            WHERE p.credential_id = $1 AND a.deleted_at IS NULL
            """
        static let deletePasskey = "DELETE FROM passkeys WHERE id = $1 AND account_id = $2"
        static let usePasskey = "UPDATE passkeys SET sign_count = $1, last_used_at = $2 WHERE id = $3 AND sign_count = $4"
        static let deletePasskeysOfAccount = "DELETE FROM passkeys WHERE account_id = $1"
    }
}
