import Clock
import Crypto
@testable import Relaydeck
import Testing

/// Login links, web sessions and passkeys in the store: one-time, expiring, kept hashed, and
/// gone with the account.
@Suite struct WebSignInTests {
    func signIn(_ test: TestStore) -> WebSignIn {
        WebSignIn(store: test.store, clock: test.clock, random: test.random)
    }

    @Test(arguments: StoreKind.allCases)
    func aLoginTokenWorksOnceAndIsStoredHashed(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let web = signIn(test)
        let (account, _) = try await test.accounts.create()
        let token = try await web.createLoginToken(accountID: account.id)
        #expect(token.hasPrefix("mcl_") && token.utf8.count == 47)
        #expect(try test.rowCount("web_login_links", where: "token_hash = x'\(Hex.encode(SHA256.hash(token)))'") == 1)
        #expect(try await web.redeemLoginToken(token) == account.id)
        #expect(try await web.redeemLoginToken(token) == nil)
        #expect(try test.rowCount("web_login_links") == 0)
    }

    @Test func aLoginTokenExpiresAfter15Minutes() async throws {
        let test = try TestStore(.memory)
        let web = signIn(test)
        let (account, _) = try await test.accounts.create()
        let fresh = try await web.createLoginToken(accountID: account.id)
        let old = try await web.createLoginToken(accountID: account.id)
        test.clock.advance(millis: WebSignIn.linkLifetimeMillis - 1)
        #expect(try await web.redeemLoginToken(fresh) == account.id)
        test.clock.advance(millis: 1)
        #expect(try await web.redeemLoginToken(old) == nil)
    }

    @Test func aLoginTokenOfAnUnknownAccountIsNotMade() async throws {
        let test = try TestStore(.memory)
        await #expect(throws: DomainError.notFound("Account not found.")) {
            try await signIn(test).createLoginToken(accountID: "acc_01arz3ndektsv4rrffq69g5fav")
        }
    }

    @Test func aSessionIsFoundByItsSecretAndEndsAfter30DaysUnused() async throws {
        let test = try TestStore(.memory)
        let web = signIn(test)
        let (account, _) = try await test.accounts.create()
        let (session, secret) = try await web.createSession(accountID: account.id, userAgent: "Firefox\n 128")
        #expect(Identifier.isWellFormed(Substring(session.id), prefix: "wss_"))
        #expect(session.userAgent == "Firefox 128")
        #expect(try test.rowCount("web_sessions", where: "secret_hash = x'\(Hex.encode(SHA256.hash(secret)))'") == 1)
        #expect(try await web.session(secret: secret) == session)
        #expect(try await web.session(secret: "mcs_" + String(repeating: "A", count: 43)) == nil)
        // Used on day 29, it lives 30 more days from then.
        test.clock.advance(millis: 29 * 86_400_000)
        #expect(try await web.session(secret: secret)?.lastUsedAt == test.clock.wallMillis)
        test.clock.advance(millis: WebSignIn.sessionIdleMillis - 1)
        #expect(try await web.session(secret: secret) != nil)
        test.clock.advance(millis: WebSignIn.sessionIdleMillis)
        #expect(try await web.session(secret: secret) == nil)
        #expect(try await web.sessions(accountID: account.id).isEmpty)
    }

    @Test func sessionsAreListedNewestFirstAndRemovedOneByOne() async throws {
        let test = try TestStore(.memory)
        let web = signIn(test)
        let (account, _) = try await test.accounts.create()
        let (other, _) = try await test.accounts.create()
        let first = try await web.createSession(accountID: account.id, userAgent: nil)
        test.clock.advance(millis: 1000)
        let second = try await web.createSession(accountID: account.id, userAgent: nil)
        #expect(try await web.sessions(accountID: account.id).map(\.id) == [second.session.id, first.session.id])
        await #expect(throws: DomainError.notFound("Session not found.")) {
            try await web.deleteSession(accountID: other.id, id: first.session.id)
        }
        try await web.deleteSession(accountID: account.id, id: first.session.id)
        #expect(try await web.session(secret: first.secret) == nil)
        #expect(try await web.session(secret: second.secret) != nil)
    }

    @Test func passkeysAreKeptListedUsedAndRemoved() async throws {
        let test = try TestStore(.memory)
        let web = signIn(test)
        let (account, _) = try await test.accounts.create()
        let passkey = try await web.addPasskey(accountID: account.id, credentialID: [1, 2, 3], publicKey: [0xA0], signCount: 0,
                                         name: checked("My laptop", .passkeyName))
        #expect(try await web.passkeys(accountID: account.id) == [passkey])
        #expect(try await web.passkey(credentialID: [1, 2, 3]) == passkey)
        await #expect(throws: DomainError.conflict("This passkey is registered already.")) {
            try await web.addPasskey(accountID: account.id, credentialID: [1, 2, 3], publicKey: [0xA0], signCount: 0,
                               name: checked("Again", .passkeyName))
        }
        #expect(try await web.recordPasskeyUse(passkey, signCount: 4))
        // A second use decided on the old counter loses.
        #expect(try await web.recordPasskeyUse(passkey, signCount: 5) == false)
        let used = try #require(try await web.passkey(credentialID: [1, 2, 3]))
        #expect(used.signCount == 4 && used.lastUsedAt == test.clock.wallMillis)
        try await web.deletePasskey(accountID: account.id, id: passkey.id)
        #expect(try await web.passkey(credentialID: [1, 2, 3]) == nil)
        await #expect(throws: DomainError.notFound("Passkey not found.")) { try await web.deletePasskey(accountID: account.id, id: passkey.id) }
    }

    @Test func deletingTheAccountRemovesItsLinksSessionsAndPasskeys() async throws {
        let test = try TestStore(.memory)
        let web = signIn(test)
        let (account, _) = try await test.accounts.create()
        let token = try await web.createLoginToken(accountID: account.id)
        let (_, secret) = try await web.createSession(accountID: account.id, userAgent: nil)
        _ = try await web.addPasskey(accountID: account.id, credentialID: [9], publicKey: [0xA0], signCount: 0,
                               name: checked("Phone", .passkeyName))
        try await test.accounts.delete(account.id)
        for table in ["web_login_links", "web_sessions", "passkeys"] {
            #expect(try test.rowCount(table) == 0)
        }
        #expect(try await web.redeemLoginToken(token) == nil)
        #expect(try await web.session(secret: secret) == nil)
    }
}
