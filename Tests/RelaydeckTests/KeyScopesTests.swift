import Clock
@testable import Relaydeck
import SQLite
import Testing

/// A key's scopes (issue 24): stored with the key, read with its credential, changed together
/// with its label, and never cached past a change or a failed COMMIT.
@Suite struct KeyScopesTests {
    static let readOnly = ScopeSet([.tasksRead, .inbox])

    @Test(arguments: StoreKind.allCases)
    func aKeyMadeWithScopesHoldsThemAndItsCredentialCarriesThem(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        let (key, secret) = try await test.keys.create(accountID: account.id, label: checked("Reader"), scopes: Self.readOnly)
        #expect(key.scopes == Self.readOnly)
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id).scopes == Self.readOnly)
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.scopes == Self.readOnly)
        #expect(try test.rowCount("keys", where: "scopes = 33") == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aKeyMadeWithoutScopesHoldsEveryOneAndTheAccountTokenToo(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token, made) = try await test.account(withKeys: 1)
        #expect(made[0].key.scopes == .all)
        #expect(try await test.authenticator.authenticate(Substring(made[0].secret.text))?.scopes == .all)
        #expect(try await test.authenticator.authenticate(Substring(token.text)) == .account(accountID: account.id))
        #expect(Principal.account(accountID: account.id).scopes == .all)
    }

    @Test(arguments: StoreKind.allCases)
    func aCachedCredentialCarriesItsScopesWithoutAReadOfTheStore(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        let (_, secret) = try await test.keys.create(accountID: account.id, label: checked("Reader"), scopes: Self.readOnly)
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.scopes == Self.readOnly)
        // Rows changed behind the server's back are not seen: the scopes came from the cache.
        // (Nothing but this process changes the store; this only proves where they came from.)
        try test.store.write { try $0.execute("UPDATE keys SET scopes = 63") }
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.scopes == Self.readOnly)
    }

    @Test func aKeyWithoutAnyScopeIsRefusedAndNothingIsWritten() async throws {
        let test = try TestStore(.memory)
        let (account, _, made) = try await test.account(withKeys: 1)
        await #expect(throws: Keys.noScopeError) {
            _ = try await test.keys.create(accountID: account.id, label: checked("Nothing"), scopes: ScopeSet([]))
        }
        await #expect(throws: Keys.noScopeError) {
            _ = try await test.keys.update(accountID: account.id, keyID: made[0].key.id, label: checked("Renamed"), scopes: ScopeSet([]))
        }
        #expect(try await test.keys.list(accountID: account.id) == [made[0].key])
    }

    @Test(arguments: StoreKind.allCases)
    func changingTheScopesHoldsForTheNextRequestAndIsAnnouncedOnce(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, made) = try await test.account(withKeys: 1)
        let (key, secret) = made[0]
        // Cached with every scope.
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.scopes == .all)
        let before = test.changes.count
        let changed = try await test.keys.update(accountID: account.id, keyID: key.id, label: nil, scopes: Self.readOnly)
        #expect(changed.scopes == Self.readOnly && changed.label == key.label)
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.scopes == Self.readOnly)
        #expect(Array(test.changes[before...]) == [Change(accountID: account.id, event: .keyUpdated(changed), actor: .account)])
        // The same scopes again change nothing and announce nothing.
        _ = try await test.keys.update(accountID: account.id, keyID: key.id, label: nil, scopes: ScopeSet([.inbox, .tasksRead]))
        #expect(test.changes.count == before + 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aLabelAndScopesChangeTogetherOrNotAtAll(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, made) = try await test.account(withKeys: 1)
        let key = made[0].key
        let both = try await test.keys.update(accountID: account.id, keyID: key.id, label: checked("Reader"), scopes: Self.readOnly)
        #expect(both.label == "Reader" && both.scopes == Self.readOnly)
        await #expect(throws: DomainError.notFound("Key not found.")) {
            _ = try await test.keys.update(accountID: account.id, keyID: "key_unknown", label: checked("X"), scopes: .all)
        }
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id) == both)
    }

    @Test(arguments: StoreKind.allCases)
    func aScopeChangeWhoseCommitFailsLeavesNoCachedPowerBehind(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, made) = try await test.account(withKeys: 1)
        let (key, secret) = made[0]
        try test.store.write { db in
            // A foreign key checked only at COMMIT, broken by any change of a key's scopes.
            try db.execute("""
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(parent REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                CREATE TRIGGER poison AFTER UPDATE OF scopes ON keys BEGIN INSERT INTO child VALUES (1); END;
                """)
        }
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.scopes == .all)
        let work = try #require(try test.store.tryBeginWork())
        _ = try await test.keys.update(accountID: account.id, keyID: key.id, label: nil, scopes: Self.readOnly)
        // A request later in the same turn reads the key as the turn's write left it.
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.scopes == Self.readOnly)
        #expect(throws: StoreError.self) { try work.commit() }
        #expect(test.store.credentials.count == 0)
        #expect(try await test.authenticator.authenticate(Substring(secret.text))?.scopes == .all)
    }

    @Test func aStoredScopeBitNoScopeHasFailsTheReadLoudly() async throws {
        let test = try TestStore(.memory)
        let (account, _, made) = try await test.account(withKeys: 1)
        // The CHECK of migration 12 keeps such a value out; a copy without it, as a hand-edited
        // file might be, is read through the same decoder.
        try test.store.write { db in
            try db.execute("CREATE TABLE loose AS SELECT * FROM keys")
            try db.execute("UPDATE loose SET scopes = 64 | 1")
        }
        let error = #expect(throws: StoreError.self) {
            try test.store.read { db in
                let statement = try db.prepare("SELECT \(Keys.SQL.columns) FROM loose")
                let row = try #require(try statement.nextRow())
                _ = try Key(row: row, accountID: account.id)
            }
        }
        #expect(error.map { "\($0)".contains("the result column scopes has bits no scope has") } == true)
        // And the CHECK itself: no key holds nothing, or a bit past the six.
        for bits in [0, 64] {
            let refused = #expect(throws: StoreError.self) {
                try test.store.write { try $0.execute("UPDATE keys SET scopes = \(bits) WHERE id = '\(made[0].key.id)'") }
            }
            #expect(refused.map { "\($0)".contains("CHECK constraint failed: scopes BETWEEN 1 AND 63") } == true)
        }
    }
}
