import Clock
@testable import Relaydeck
import Testing

@Suite struct KeysTests {
    @Test(arguments: StoreKind.allCases)
    func createReturnsTheKeyAndItsOnlyCopyOfTheSecret(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        test.clock.wallMillis = 1_760_112_000_412
        let (key, secret) = try await test.keys.create(accountID: account.id, label: checked("Cursor"))
        #expect(Identifier.isWellFormed(Substring(key.id), prefix: "key_"))
        #expect(Secret.kind(of: Substring(secret.text)) == .apiKey)
        #expect(key == Key(
            id: key.id, accountID: account.id, label: "Cursor", prefix: String(secret.text.prefix(8)),
            last4: String(secret.text.suffix(4)), createdAt: 1_760_112_000_412, lastUsedAt: nil, lastClient: nil,
            lastHost: nil, scopes: .all, counts: Key.Counts()))
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id) == key)
    }

    @Test(arguments: StoreKind.allCases)
    func createNormalizesTheLabel(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        let (key, _) = try await test.keys.create(accountID: account.id, label: checked("  Claude \n\t Code\r\n"))
        #expect(key.label == "Claude Code")
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id).label == "Claude Code")
    }

    @Test(arguments: [
        ("", "Must be 1 to 40 characters."),
        (" \n\t ", "Must be 1 to 40 characters."),
        (String(repeating: "x", count: 41), "Must be 1 to 40 characters."),
        ("bell\u{0007}", "Must not contain control characters."),
        ("del\u{007F}", "Must not contain control characters."),
        (String(repeating: "y", count: 50) + "\u{0000}", "Must not contain control characters."),
    ])
    func createRefusesABadLabel(label: String, message: String) async throws {
        let test = try TestStore(.memory)
        let (account, _) = try await test.accounts.create()
        #expect(TextRule.keyLabel.check(label).problem?.message == message)
        #expect(try await test.keys.list(accountID: account.id).isEmpty)
    }

    /// Forty after folding white space, and forty graphemes of several code points each
    /// (within the label's 160 bytes).
    @Test func labelLengthIsCountedAfterNormalizationInGraphemes() async throws {
        let test = try TestStore(.memory)
        let (account, _) = try await test.accounts.create()
        let spaced = "  " + String(repeating: "a", count: 20) + "\n\n\n" + String(repeating: "b", count: 19) + "  "
        #expect(try await test.keys.create(accountID: account.id, label: checked(spaced)).key.label.count == 40)
        let stacked = String(repeating: "e\u{0301}", count: 40)
        #expect(stacked.utf8.count == 120)
        #expect(try await test.keys.create(accountID: account.id, label: checked(stacked)).key.label == stacked)
        #expect(TextRule.keyLabel.check(stacked + "e").problem?.message == "Must be 1 to 40 characters.")
    }

    @Test(arguments: StoreKind.allCases)
    func listIsNewestFirst(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        var ids: [String] = []
        for index in 0..<4 {
            ids.append(try await test.keys.create(accountID: account.id, label: checked("key \(index)")).key.id)
            // The last two share a millisecond: creation order still decides.
            if index < 2 { test.clock.advance(millis: 1_000) }
        }
        #expect(try await test.keys.list(accountID: account.id).map(\.id) == ids.reversed())
    }

    @Test(arguments: StoreKind.allCases)
    func listHasOnlyTheAccountsLiveKeys(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 3)
        _ = try await test.account(withKeys: 2)
        try await test.keys.delete(accountID: account.id, keyID: keys[1].key.id)
        #expect(try await test.keys.list(accountID: account.id).map(\.id) == [keys[2].key.id, keys[0].key.id])
        #expect(try await test.keys.list(accountID: "acc_01arz3ndektsv4rrffq69g5fav").isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func theTwentyFirstKeyIsAConflict(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, _) = try await test.account(withKeys: 20)
        await #expect(throws: DomainError.conflict("An account can have 20 keys.")) {
            try await test.keys.create(accountID: account.id, label: checked("one too many"))
        }
        #expect(try await test.keys.list(accountID: account.id).count == 20)
        // The limit is per account.
        let (other, _) = try await test.accounts.create()
        #expect(try await test.keys.create(accountID: other.id, label: checked("first")).key.label == "first")
    }

    @Test(arguments: StoreKind.allCases)
    func deletedKeysDoNotCountTowardTheLimit(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 20)
        try await test.keys.delete(accountID: account.id, keyID: keys[7].key.id)
        let (replacement, _) = try await test.keys.create(accountID: account.id, label: checked("replacement"))
        #expect(try await test.keys.list(accountID: account.id).count == 20)
        #expect(try await test.keys.list(accountID: account.id).first?.id == replacement.id)
        await #expect(throws: DomainError.conflict("An account can have 20 keys.")) {
            try await test.keys.create(accountID: account.id, label: checked("one too many"))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func updateChangesTheNormalizedLabelOnly(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 1)
        let original = keys[0].key
        test.clock.advance(millis: 10_000)
        let updated = try await test.keys.update(accountID: account.id, keyID: original.id, label: checked(" Cursor\n(work) "))
        var expected = original
        expected.label = "Cursor (work)"
        #expect(updated == expected)
        #expect(try await test.keys.get(accountID: account.id, keyID: original.id) == expected)
    }

    @Test(arguments: StoreKind.allCases)
    func updateWithoutALabelChangesNothing(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 1)
        #expect(try await test.keys.update(accountID: account.id, keyID: keys[0].key.id, label: nil) == keys[0].key)
    }

    @Test(arguments: StoreKind.allCases)
    func updateRefusesABadLabelAndKeepsTheOldOne(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 1)
        #expect(TextRule.keyLabel.check("  ").problem?.message == "Must be 1 to 40 characters.")
        #expect(try await test.keys.get(accountID: account.id, keyID: keys[0].key.id).label == "key 1")
    }

    @Test(arguments: StoreKind.allCases)
    func aKeyOfAnotherAccountIsNotFound(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (mine, _, _) = try await test.account(withKeys: 1)
        let (theirs, _, theirKeys) = try await test.account(withKeys: 1)
        let theirKey = theirKeys[0].key
        let notFound = DomainError.notFound("Key not found.")
        await #expect(throws: notFound) { try await test.keys.get(accountID: mine.id, keyID: theirKey.id) }
        await #expect(throws: notFound) { try await test.keys.update(accountID: mine.id, keyID: theirKey.id, label: checked("mine now")) }
        await #expect(throws: notFound) { try await test.keys.update(accountID: mine.id, keyID: theirKey.id, label: nil) }
        await #expect(throws: notFound) { try await test.keys.delete(accountID: mine.id, keyID: theirKey.id) }
        // Nothing happened to it.
        #expect(try await test.keys.get(accountID: theirs.id, keyID: theirKey.id) == theirKey)
        #expect(try await test.authenticator.authenticate(Substring(theirKeys[0].secret.text)) != nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedKeyIsNotFoundAfterwards(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 2)
        let (gone, secret) = keys[0]
        try await test.keys.delete(accountID: account.id, keyID: gone.id)
        let notFound = DomainError.notFound("Key not found.")
        await #expect(throws: notFound) { try await test.keys.get(accountID: account.id, keyID: gone.id) }
        await #expect(throws: notFound) { try await test.keys.update(accountID: account.id, keyID: gone.id, label: checked("back")) }
        await #expect(throws: notFound) { try await test.keys.delete(accountID: account.id, keyID: gone.id) }
        #expect(try await test.authenticator.authenticate(Substring(secret.text)) == nil)
        #expect(try await test.keys.get(accountID: account.id, keyID: keys[1].key.id) == keys[1].key)
    }

    @Test(arguments: StoreKind.allCases)
    func anUnknownKeyIsNotFound(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        await #expect(throws: DomainError.notFound("Key not found.")) {
            try await test.keys.delete(accountID: account.id, keyID: "key_01arz3ndektsv4rrffq69g5fav")
        }
        await #expect(throws: DomainError.notFound("Key not found.")) {
            try await test.keys.update(accountID: account.id, keyID: "not even an id", label: nil)
        }
    }
}
