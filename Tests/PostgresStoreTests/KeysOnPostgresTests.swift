import Clock
import PostgresStore
@testable import Relaydeck
import Testing

/// `Keys` on a real PostgreSQL database (`AccountsOnPostgresTests.Services`: the filled
/// store's copy, where acc_1 has key_1, with an OAuth grant, and key_2), with the behaviour its
/// SQLite tests check: made with its only copy of the secret, listed newest first, 20 live
/// keys an account, renamed and its scopes changed together (announced once, the cached
/// credential forgotten), deleted with its grants, and its use, host and client noted only
/// when they change.
@Suite struct KeysOnPostgresTests {
    typealias Services = AccountsOnPostgresTests.Services

    @Test func aKeyIsMadeWithItsOnlyCopyOfTheSecretAndListedNewestFirstOnPostgreSQL() throws {
        let domain = try Services()
        let before = domain.published.count
        let (key, secret) = try domain.run { try await domain.keys.create(accountID: "acc_1", label: Services.checked("  Zed\n editor ")) }
        #expect(key == Key(id: key.id, accountID: "acc_1", label: "Zed editor", prefix: String(secret.text.prefix(8)),
                           last4: String(secret.text.suffix(4)), createdAt: 1_760_000_000_000, lastUsedAt: nil, lastClient: nil,
                           lastHost: nil, scopes: .all, counts: Key.Counts()))
        #expect(domain.published(since: before) == [Change(accountID: "acc_1", event: .keyCreated(key), actor: .account)])
        #expect(try domain.run { try await domain.keys.get(accountID: "acc_1", keyID: key.id) } == key)
        guard case .key(let use)? = try domain.principal(secret) else {
            Issue.record("the new key did not authenticate")
            return
        }
        #expect(use.keyID == key.id && use.scopes == .all)
        // Made in the same millisecond: the order they were made in still decides.
        let next = try domain.run { try await domain.keys.create(accountID: "acc_1", label: Services.checked("Next")) }.key
        #expect(try domain.run { try await domain.keys.list(accountID: "acc_1") }.map(\.id) == [next.id, key.id, "key_2", "key_1"])
        #expect(throws: DomainError.notFound("Key not found.")) {
            try domain.run { try await domain.keys.get(accountID: "acc_2", keyID: key.id) }
        }
    }

    @Test func theTwentyFirstLiveKeyIsAConflictAndADeletedOneFreesAPlaceOnPostgreSQL() throws {
        let domain = try Services()
        // acc_1 has two keys already.
        let made = try domain.run {
            var made: [Key] = []
            for index in 3...20 { made.append(try await domain.keys.create(accountID: "acc_1", label: Services.checked("key \(index)")).key) }
            return made
        }
        let before = domain.published.count
        #expect(throws: Keys.fullError) {
            try domain.run { try await domain.keys.create(accountID: "acc_1", label: Services.checked("one too many")) }
        }
        #expect(domain.published.count == before)
        #expect(try domain.count("SELECT count(*) AS n FROM keys WHERE account_id = 'acc_1'") == 20)
        try domain.run { try await domain.keys.delete(accountID: "acc_1", keyID: made[7].id) }
        let replacement = try domain.run { try await domain.keys.create(accountID: "acc_1", label: Services.checked("replacement")) }.key
        #expect(try domain.run { try await domain.keys.list(accountID: "acc_1") }.first == replacement)
        #expect(throws: Keys.fullError) {
            try domain.run { try await domain.keys.create(accountID: "acc_1", label: Services.checked("one too many")) }
        }
        // The limit is per account.
        let (other, _, _) = try domain.account(withKeys: 1)
        #expect(try domain.run { try await domain.keys.list(accountID: other.id) }.count == 1)
    }

    @Test func anUpdateChangesLabelAndScopesTogetherAnnouncedOnceAndTheCacheForgetsOnPostgreSQL() throws {
        let domain = try Services()
        let (account, _, made) = try domain.account(withKeys: 1)
        let (key, secret) = made[0]
        #expect(try domain.principal(secret)?.scopes == .all)
        let readOnly = ScopeSet([.tasksRead, .inbox])
        let before = domain.published.count
        let updated = try domain.run {
            try await domain.keys.update(accountID: account.id, keyID: key.id, label: Services.checked(" Reader\n"), scopes: readOnly)
        }
        var expected = key
        expected.label = "Reader"
        expected.scopes = readOnly
        #expect(updated == expected)
        #expect(domain.published(since: before) == [Change(accountID: account.id, event: .keyUpdated(expected), actor: .account)])
        #expect(try domain.principal(secret)?.scopes == readOnly)
        // The same label and scopes again, or nothing: no change, nothing announced.
        let same = try domain.run {
            try await domain.keys.update(accountID: account.id, keyID: key.id, label: Services.checked("Reader"), scopes: readOnly)
        }
        #expect(same == expected)
        #expect(try domain.run { try await domain.keys.update(accountID: account.id, keyID: key.id, label: nil) } == expected)
        #expect(domain.published.count == before + 1)
        #expect(throws: Keys.noScopeError) {
            try domain.run { try await domain.keys.update(accountID: account.id, keyID: key.id, label: nil, scopes: ScopeSet([])) }
        }
        for (accountID, keyID) in [("acc_1", key.id), (account.id, "key_none"), (account.id, "key_1")] {
            #expect(throws: DomainError.notFound("Key not found.")) {
                try domain.run { try await domain.keys.update(accountID: accountID, keyID: keyID, label: Services.checked("Mine")) }
            }
        }
        #expect(try domain.run { try await domain.keys.get(accountID: account.id, keyID: key.id) } == expected)
    }

    @Test func aDeletedKeyTakesItsGrantsAndItsSecretStopsAtOnceOnPostgreSQL() throws {
        let domain = try Services()
        let before = domain.published.count
        try domain.run { try await domain.keys.delete(accountID: "acc_1", keyID: "key_1") }
        #expect(domain.published(since: before) == [Change(accountID: "acc_1", event: .keyDeleted(keyID: "key_1"), actor: .account)])
        for table in ["oauth_grants", "oauth_codes", "oauth_access_tokens", "oauth_refresh_tokens"] {
            #expect(try domain.count("SELECT count(*) AS n FROM \(table)") == 0, "\(table)")
        }
        #expect(try domain.run { try await domain.keys.list(accountID: "acc_1") }.map(\.id) == ["key_2"])
        for (accountID, keyID) in [("acc_1", "key_1"), ("acc_2", "key_2"), ("acc_1", "key_none")] {
            #expect(throws: DomainError.notFound("Key not found.")) {
                try domain.run { try await domain.keys.delete(accountID: accountID, keyID: keyID) }
            }
        }
        #expect(domain.published.count == before + 1)
        // A key whose credential the gate has cached.
        let (account, _, made) = try domain.account(withKeys: 2)
        #expect(try domain.principal(made[0].secret) != nil)
        try domain.run { try await domain.keys.delete(accountID: account.id, keyID: made[0].key.id) }
        #expect(try domain.principal(made[0].secret) == nil)
        #expect(try domain.principal(made[1].secret) != nil)
    }

    @Test func aUseIsNotedOnceAMinuteAndANewHostOrClientIsAnnouncedOnPostgreSQL() throws {
        let domain = try Services()
        let (account, _, made) = try domain.account(withKeys: 2)
        let (key, secret) = made[0]
        func use(host: String?) throws {
            guard case .key(let use)? = try domain.principal(secret) else {
                Issue.record("the key did not authenticate")
                return
            }
            try domain.run { try await domain.keys.recordUse(use, host: host) }
        }
        func stored() throws -> Key { try domain.run { try await domain.keys.get(accountID: account.id, keyID: key.id) } }
        let before = domain.published.count
        try use(host: nil)
        #expect(try stored().lastUsedAt == 1_760_000_000_000)
        #expect(domain.published.count == before, "last_used_at alone is not announced")
        domain.clock.advance(millis: 59_999)
        try use(host: "studio-mac")
        var key1 = try stored()
        #expect(key1.lastUsedAt == 1_760_000_000_000 && key1.lastHost == "studio-mac")
        #expect(domain.published(since: before) == [Change(accountID: account.id, event: .keyUpdated(key1), actor: .key(key.id))])
        domain.clock.advance(millis: 1)
        try use(host: "studio-mac")
        key1 = try stored()
        #expect(key1.lastUsedAt == 1_760_000_060_000 && key1.lastHost == "studio-mac")
        #expect(domain.published.count == before + 1)
        #expect(try domain.run { try await domain.keys.get(accountID: account.id, keyID: made[1].key.id) } == made[1].key)

        guard case .key(let keyUse)? = try domain.principal(secret) else { return }
        let client = Key.Client(name: "claude-code", version: "2.0")
        try domain.run { try await domain.keys.recordClient(keyUse, client) }
        key1.lastClient = client
        #expect(try stored() == key1)
        #expect(domain.published(since: before + 1) == [Change(accountID: account.id, event: .keyUpdated(key1), actor: .key(key.id))])
        // The same client again writes and announces nothing.
        try domain.run { try await domain.keys.recordClient(keyUse, client) }
        #expect(domain.published.count == before + 2)
    }
}
