@testable import Relaydeck
import SQLite
import Testing

@Suite struct AuthenticatorTests {
    @Test(arguments: StoreKind.allCases)
    func anAccountTokenGivesItsAccount(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token) = try await test.accounts.create()
        _ = try await test.accounts.create()
        let principal = try await test.authenticator.authenticate(Substring(token.text))
        #expect(principal == .account(accountID: account.id))
        #expect(principal?.accountID == account.id)
        #expect(principal?.credentialID == account.id)
    }

    @Test(arguments: StoreKind.allCases)
    func anAPIKeyGivesItsKeyAccountAndLastUse(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 2)
        let (key, secret) = keys[1]
        let fresh = try await test.authenticator.authenticate(Substring(secret.text))
        #expect(fresh == .key(KeyUse(keyID: key.id, accountID: account.id, lastUsedAt: nil, lastHost: nil, scopes: .all)))
        #expect(fresh?.accountID == account.id)
        #expect(fresh?.credentialID == key.id)

        guard case .key(let use)? = fresh else { return }
        try await test.keys.recordUse(use, host: "studio-mac")
        #expect(try await test.authenticator.authenticate(Substring(secret.text))
            == .key(KeyUse(keyID: key.id, accountID: account.id, lastUsedAt: 1_760_000_000_000, lastHost: "studio-mac", scopes: .all)))
    }

    @Test(arguments: StoreKind.allCases)
    func unknownForeignAndOverlongCredentialsAreNil(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (_, token, keys) = try await test.account(withKeys: 1)
        let secret = keys[0].secret.text
        let refused: [String] = [
            "mca_" + String(repeating: "A", count: 43),
            "mck_" + String(repeating: "A", count: 43),
            "mcx_" + token.text.dropFirst(4),
            "mck_" + token.text.dropFirst(4),  // the token's random part as a key
            "mca_" + secret.dropFirst(4),
            String(token.text.dropLast()),
            token.text + "A",
            token.text + String(repeating: "A", count: 200),
            " " + token.text,
            "Bearer " + token.text,
            token.text.uppercased(),
            "mca_",
            "",
        ]
        for presented in refused {
            #expect(try await test.authenticator.authenticate(Substring(presented)) == nil, "\(presented.prefix(12))")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedKeyIsRefusedAtOnce(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token, keys) = try await test.account(withKeys: 2)
        try await test.keys.delete(accountID: account.id, keyID: keys[0].key.id)
        #expect(try await test.authenticator.authenticate(Substring(keys[0].secret.text)) == nil)
        #expect(try await test.authenticator.authenticate(Substring(keys[1].secret.text)) != nil)
        #expect(try await test.authenticator.authenticate(Substring(token.text)) == .account(accountID: account.id))
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedAccountRefusesItsTokenAndKeysAtOnce(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token, keys) = try await test.account(withKeys: 2)
        let (other, otherToken, otherKeys) = try await test.account(withKeys: 1)
        try await test.accounts.delete(account.id)
        #expect(try await test.authenticator.authenticate(Substring(token.text)) == nil)
        for (_, secret) in keys {
            #expect(try await test.authenticator.authenticate(Substring(secret.text)) == nil)
        }
        #expect(try await test.authenticator.authenticate(Substring(otherToken.text)) == .account(accountID: other.id))
        #expect(try await test.authenticator.authenticate(Substring(otherKeys[0].secret.text))?.accountID == other.id)
    }

    /// The join checks the account too, not only the key's own row.
    @Test func aLiveKeyRowOfADeletedAccountIsRefused() async throws {
        let test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        try test.store.write { db in
            try db.execute("UPDATE accounts SET deleted_at = 1 WHERE id = '\(account.id)'")
        }
        #expect(try await test.authenticator.authenticate(Substring(keys[0].secret.text)) == nil)
    }
}
