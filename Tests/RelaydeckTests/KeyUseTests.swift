import Clock
@testable import Relaydeck
import SQLite
import Testing

/// `Keys.recordUse`: `last_used_at` at most once a minute, `last_host` when it changes.
@Suite struct KeyUseTests {
    /// Authenticates the key as a request would, then records the use.
    private func use(_ test: TestStore, _ secret: Secret, host: String?) async throws {
        guard case .key(let use)? = try await test.authenticator.authenticate(Substring(secret.text)) else {
            Issue.record("the key did not authenticate")
            return
        }
        try await test.keys.recordUse(use, host: host)
    }

    private func stored(_ test: TestStore, _ account: Account, _ key: Key) async throws -> Key {
        try await test.keys.get(accountID: account.id, keyID: key.id)
    }

    @Test(arguments: StoreKind.allCases)
    func theFirstUseSetsLastUsedAt(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 1)
        test.clock.advance(millis: 3_500)
        try await use(test, keys[0].secret, host: nil)
        let key = try await stored(test, account, keys[0].key)
        #expect(key.lastUsedAt == 1_760_000_003_500)
        #expect(key.lastHost == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func lastUsedAtChangesOnlyOnceAMinute(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 1)
        try await use(test, keys[0].secret, host: nil)
        let first = test.clock.wallMillis

        test.clock.advance(millis: 59_999)
        try await use(test, keys[0].secret, host: nil)
        #expect(try await stored(test, account, keys[0].key).lastUsedAt == first)

        test.clock.advance(millis: 1)
        try await use(test, keys[0].secret, host: nil)
        #expect(try await stored(test, account, keys[0].key).lastUsedAt == first + 60_000)
    }

    @Test(arguments: StoreKind.allCases)
    func aHostIsSetThenChangedAndNoHostKeepsIt(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 1)
        try await use(test, keys[0].secret, host: "studio-mac")
        #expect(try await stored(test, account, keys[0].key).lastHost == "studio-mac")

        // Inside the minute: the host still changes.
        test.clock.advance(millis: 1_000)
        try await use(test, keys[0].secret, host: "laptop")
        var key = try await stored(test, account, keys[0].key)
        #expect(key.lastHost == "laptop")
        #expect(key.lastUsedAt == 1_760_000_000_000)

        // A request without the header changes the time but not the host.
        test.clock.advance(millis: 60_000)
        try await use(test, keys[0].secret, host: nil)
        key = try await stored(test, account, keys[0].key)
        #expect(key.lastHost == "laptop")
        #expect(key.lastUsedAt == 1_760_000_061_000)

        try await use(test, keys[0].secret, host: "laptop")
        #expect(try await stored(test, account, keys[0].key).lastHost == "laptop")
    }

    @Test(arguments: StoreKind.allCases)
    func aUseChangesOnlyItsOwnKey(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 2)
        try await use(test, keys[0].secret, host: "studio-mac")
        #expect(try await stored(test, account, keys[1].key) == keys[1].key)
    }

    /// The common case is a read only: with another connection holding the write lock, a
    /// use that changes nothing still succeeds, and one that must write is refused.
    @Test func aUseThatChangesNothingWritesNothing() async throws {
        var options = Database.Options()
        options.busyTimeoutMillis = 50
        let test = try TestStore(.file, options: options)
        let (account, _, keys) = try await test.account(withKeys: 1)
        try await use(test, keys[0].secret, host: "studio-mac")

        let other = try Database(path: test.path, options: options)
        try other.execute("BEGIN IMMEDIATE")
        test.clock.advance(millis: 30_000)
        try await use(test, keys[0].secret, host: "studio-mac")
        try await use(test, keys[0].secret, host: nil)
        await expectUnavailable { try await use(test, keys[0].secret, host: "laptop") }
        try other.execute("COMMIT")

        try await use(test, keys[0].secret, host: "laptop")
        #expect(try await stored(test, account, keys[0].key).lastHost == "laptop")
    }
}
