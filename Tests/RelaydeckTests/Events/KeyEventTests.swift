import Relaydeck
import Testing

/// Keys and accounts announce their committed changes (`events.md#event-types`).
@Suite struct KeyEventTests {
    @Test func creatingRenamingAndDeletingAKeyAreAnnounced() async throws {
        let test = try TestStore(.memory)
        let (account, _) = try await test.accounts.create()
        let (key, _) = try await test.keys.create(accountID: account.id, label: checked("Cursor"))
        let renamed = try await test.keys.update(accountID: account.id, keyID: key.id, label: checked("Cursor (work)"))
        try await test.keys.delete(accountID: account.id, keyID: key.id)
        #expect(test.changes == [
            Change(accountID: account.id, event: .keyCreated(key), actor: .account),
            Change(accountID: account.id, event: .keyUpdated(renamed), actor: .account),
            Change(accountID: account.id, event: .keyDeleted(keyID: key.id), actor: .account),
        ])
    }

    @Test func aLabelThatStaysTheSameIsNoChange() async throws {
        let test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        let before = test.changes.count
        _ = try await test.keys.update(accountID: account.id, keyID: keys[0].key.id, label: checked(" key  1 "))
        _ = try await test.keys.update(accountID: account.id, keyID: keys[0].key.id, label: nil)
        #expect(test.changes.count == before)
    }

    /// `key.updated` for a new host name; never for `last_used_at` alone.
    @Test func aNewHostIsAnnouncedAndAUseIsNot() async throws {
        let test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        let use = try await #require(try test.keys.use(of: keys[0].secret, test.authenticator))
        let before = test.changes.count
        try await test.keys.recordUse(use, host: nil)
        #expect(test.changes.count == before)
        try await test.keys.recordUse(use, host: "studio-mac")
        guard case .keyUpdated(let key)? = test.changes.last?.event else {
            Issue.record("no key.updated")
            return
        }
        #expect(key.lastHost == "studio-mac")
        #expect(test.changes.last?.actor == .key(keys[0].key.id))
        #expect(test.changes.last?.accountID == account.id)
    }

    @Test func deletingTheAccountIsAnnounced() async throws {
        let test = try TestStore(.memory)
        let (account, _) = try await test.accounts.create()
        try await test.accounts.delete(account.id)
        #expect(test.changes.last == Change(accountID: account.id, event: .accountDeleted, actor: .account))
    }
}

extension Keys {
    /// The key use of a secret, as the authenticator gives it.
    func use(of secret: Secret, _ authenticator: Authenticator) async throws -> KeyUse? {
        guard case .key(let use)? = try await authenticator.authenticate(Substring(secret.text)) else { return nil }
        return use
    }
}
