import Clock
import Crypto
import EventLoop
import Postgres
import PostgresStore
@testable import Relaydeck
import SQLite
import Testing
import TestSupport

/// The services of signing in, written against `StoreSession`, on a real PostgreSQL database
/// (the filled store's copy): `Authenticator` (each kind of credential, a deleted account, an
/// access token's audience and expiry) and `WebSignIn` (login links, sessions, passkeys).
@Suite struct SignInOnPostgresTests {
    static let accountToken = "mca_" + String(repeating: "a", count: 43)
    static let apiKey = "mck_" + String(repeating: "k", count: 43)
    static let accessToken = "mco_" + String(repeating: "o", count: 43)
    static let resource = "https://relay.example/mcp"

    /// The filled store's rows, and a credential of each kind whose secret the test knows.
    static func filled() throws -> PostgresSessionStoreTests.Filled {
        let db = try PostgresSessionStoreTests.Filled()
        try db.run {
            try await db.store.writing { session in
                try await session.run("INSERT INTO accounts (id, token_hash, created_at) VALUES ('acc_9', $1, 1)",
                                      .blob(SHA256.hash(Self.accountToken)))
                try await session.run("""
                    INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at, scopes) \
                    VALUES ('key_9', 'acc_9', 'Agent', $1, 'mck_', 'kkkk', 2, 3)
                    """, .blob(SHA256.hash(Self.apiKey)))
                try await session.run("INSERT INTO oauth_access_tokens (token_hash, grant_id, scopes, expires_at) VALUES ($1, 'ogr_1', 3, 5000)",
                                      .blob(SHA256.hash(Self.accessToken)))
            }
        }
        return db
    }

    @Test func eachKindOfCredentialGivesItsPrincipalAndADeletedAccountNone() throws {
        let db = try Self.filled()
        let clock = ManualClock()
        let authenticator = Authenticator(store: db.store, credentials: CredentialCache(), clock: clock)
        let account = try db.run { try await authenticator.authenticate(Substring(Self.accountToken)) }
        #expect(account == .account(accountID: "acc_9"))
        guard case .key(let use)? = try db.run({ try await authenticator.authenticate(Substring(Self.apiKey)) }) else {
            Issue.record("the API key gave no key principal")
            return
        }
        #expect(use.keyID == "key_9")
        #expect(use.accountID == "acc_9")
        #expect(use.scopes == ScopeSet(bits: 3))
        #expect(use.grant == nil)

        clock.wallMillis = 4000
        guard case .key(let connector)? = try db.run({
            try await authenticator.authenticate(Substring(Self.accessToken), audience: Self.resource)
        }) else {
            Issue.record("the access token gave no key principal")
            return
        }
        #expect(connector.keyID == "key_1")
        #expect(connector.grant?.grantID == "ogr_1")
        #expect(connector.grant?.clientName == "Claude")
        // The key's scopes (63) and the token's (3): no more than both allow.
        #expect(connector.scopes == ScopeSet(bits: 3))
        // Another audience, or past its expiry: none, also from the cache.
        #expect(try db.run { try await authenticator.authenticate(Substring(Self.accessToken), audience: "https://other.example/mcp") } == nil)
        clock.wallMillis = 5000
        #expect(try db.run { try await authenticator.authenticate(Substring(Self.accessToken), audience: Self.resource) } == nil)

        _ = try db.run { try await db.store.writing { try await $0.run("UPDATE accounts SET deleted_at = 9 WHERE id = 'acc_9'") } }
        let fresh = Authenticator(store: db.store, credentials: CredentialCache(), clock: clock)
        #expect(try db.run { try await fresh.authenticate(Substring(Self.accountToken)) } == nil)
        #expect(try db.run { try await fresh.authenticate(Substring(Self.apiKey)) } == nil)
    }

    @Test func loginLinksSessionsAndPasskeysOnPostgreSQL() throws {
        let db = try Self.filled()
        let clock = ManualClock()
        clock.wallMillis = 1_000_000
        let signIn = WebSignIn(store: db.store, clock: clock, random: SystemRandom())

        let token = try db.run { try await signIn.createLoginToken(accountID: "acc_9") }
        #expect(try db.run { try await signIn.redeemLoginToken(token) } == "acc_9")
        // Used up by its first use.
        #expect(try db.run { try await signIn.redeemLoginToken(token) } == nil)
        #expect(throws: DomainError.notFound("Account not found.")) {
            try db.run { try await signIn.createLoginToken(accountID: "acc_none") }
        }

        let (session, secret) = try db.run { try await signIn.createSession(accountID: "acc_9", userAgent: "Firefox") }
        #expect(try db.run { try await signIn.session(secret: secret) }?.id == session.id)
        clock.advance(millis: WebSignIn.touchIntervalMillis)
        #expect(try db.run { try await signIn.session(secret: secret) }?.lastUsedAt == clock.wallMillis)
        #expect(try db.run { try await signIn.sessions(accountID: "acc_9") }.map(\.id) == [session.id])
        try db.run { try await signIn.deleteSession(accountID: "acc_9", id: session.id) }
        #expect(try db.run { try await signIn.session(secret: secret) } == nil)
        #expect(throws: DomainError.notFound("Session not found.")) {
            try db.run { try await signIn.deleteSession(accountID: "acc_9", id: session.id) }
        }

        let name = try TextRule.passkeyName.check("Laptop").get()
        let passkey = try db.run {
            try await signIn.addPasskey(accountID: "acc_9", credentialID: [9, 9], publicKey: [4, 1], signCount: 5, name: name)
        }
        #expect(throws: DomainError.conflict("This passkey is registered already.")) {
            try db.run { try await signIn.addPasskey(accountID: "acc_9", credentialID: [9, 9], publicKey: [4, 1], signCount: 5, name: name) }
        }
        #expect(try db.run { try await signIn.passkey(credentialID: [9, 9]) }?.id == passkey.id)
        #expect(try db.run { try await signIn.recordPasskeyUse(passkey, signCount: 6) })
        // The same assertion again: the stored counter moved on, so it is refused.
        #expect(try db.run { try await signIn.recordPasskeyUse(passkey, signCount: 6) } == false)
        #expect(try db.run { try await signIn.passkeys(accountID: "acc_9") }.map(\.signCount) == [6])
        try db.run { try await signIn.deletePasskey(accountID: "acc_9", id: passkey.id) }
        #expect(try db.run { try await signIn.passkeys(accountID: "acc_9") }.isEmpty)
    }
}
