import Clock
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

/// The credential cache answers without the store, and is never behind it.
@Suite struct CredentialCacheTests {
    @Test(arguments: StoreKind.allCases)
    func aKnownCredentialIsAnsweredWithoutTheStore(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token, made) = try await test.account(withKeys: 1)
        #expect(try await test.authenticator.authenticate(Substring(token.text)) == .account(accountID: account.id))
        #expect(test.store.credentials.count == 1)
        // Rows changed behind the server's back are not seen: the cache answered. (Nothing
        // but this process changes the store; this only proves where the answer came from.)
        try test.store.write { try $0.execute("UPDATE accounts SET token_hash = x'00'") }
        #expect(try await test.authenticator.authenticate(Substring(token.text)) == .account(accountID: account.id))
        _ = made
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAKeyForgetsItAtOnce(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token, made) = try await test.account(withKeys: 2)
        let (key, secret) = made[0]
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.credentialID == key.id)
        #expect(try await test.authenticator.authenticate(Substring(made[1].secret.text))?.credentialID == made[1].key.id)
        try await test.keys.delete(accountID: account.id, keyID: key.id)
        #expect(try await test.authenticator.authenticate(Substring(secret.text)) == nil)
        // The other key and the token are untouched.
        #expect(try await test.authenticator.authenticate(Substring(made[1].secret.text))?.credentialID == made[1].key.id)
        #expect(try await test.authenticator.authenticate(Substring(token.text)) == .account(accountID: account.id))
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAnAccountForgetsItsTokenAndKeysAtOnce(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token, made) = try await test.account(withKeys: 2)
        let (other, otherToken, _) = try await test.account(withKeys: 0)
        for secret in [token] + made.map(\.secret) + [otherToken] {
            #expect(try await test.authenticator.authenticate(Substring(secret.text)) != nil)
        }
        try await test.accounts.delete(account.id)
        for secret in [token] + made.map(\.secret) {
            #expect(try await test.authenticator.authenticate(Substring(secret.text)) == nil)
        }
        #expect(try await test.authenticator.authenticate(Substring(otherToken.text)) == .account(accountID: other.id))
    }

    @Test(arguments: StoreKind.allCases)
    func aRecordedUseIsWhatTheNextRequestSees(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (_, _, made) = try await test.account(withKeys: 1)
        let secret = Substring(made[0].secret.text)
        guard case .key(let first)? = try await test.authenticator.authenticate(secret) else {
            Issue.record("not a key")
            return
        }
        #expect(first.lastUsedAt == nil)
        try await test.keys.recordUse(first, host: "studio-mac")
        guard case .key(let second)? = try await test.authenticator.authenticate(secret) else {
            Issue.record("not a key")
            return
        }
        #expect(second.lastUsedAt == test.clock.wallMillis)
        #expect(second.lastHost == "studio-mac")
        // So the next use within the minute writes nothing.
        try test.store.write { try $0.execute("UPDATE keys SET last_used_at = NULL") }
        try await test.keys.recordUse(second, host: "studio-mac")
        #expect(try test.rowCount("keys", where: "last_used_at IS NULL") == 1)
    }

    @Test func aFullCacheStartsOver() {
        let cache = CredentialCache(capacity: 2)
        cache.remember(.account(accountID: "acc_1"), for: [1])
        cache.remember(.account(accountID: "acc_2"), for: [2])
        #expect(cache.count == 2)
        cache.remember(.account(accountID: "acc_3"), for: [3])
        #expect(cache.count == 1)
        #expect(cache.principal(for: [3]) == .account(accountID: "acc_3"))
        #expect(cache.principal(for: [1]) == nil)
    }

    /// PostgreSQL's store: other nodes change credentials too, so none is kept.
    @Test func aCacheOfNoCapacityKeepsNothing() {
        let cache = CredentialCache(capacity: 0)
        cache.remember(.account(accountID: "acc_1"), for: [1])
        #expect(cache.count == 0)
        #expect(cache.principal(for: [1]) == nil)
    }
}
