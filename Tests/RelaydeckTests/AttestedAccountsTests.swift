import Clock
@testable import Relaydeck
import SQLite
import Testing

/// `app-integrity.md#what-the-server-validates`: the account keeps the attested key; one key
/// makes one account, and a new one once that account is deleted (also after the purge).
@Suite struct AttestedAccountsTests {
    static let key = AttestedKey(keyID: [UInt8](repeating: 0xA1, count: 32),
                                 publicKey: [0x04] + [UInt8](repeating: 0xB2, count: 64), counter: 0)

    @Test(arguments: StoreKind.allCases)
    func theAccountKeepsTheKeyItWasMadeWith(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create(attestedKey: Self.key)
        #expect(try await test.accounts.attestedKey(of: account.id) == Self.key)
        #expect(try await test.accounts.get(account.id).id == account.id)
        // An account made without App Attest keeps none.
        let (plain, _) = try await test.accounts.create()
        #expect(try await test.accounts.attestedKey(of: plain.id) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func oneKeyMakesOneAccount(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        _ = try await test.accounts.create(attestedKey: Self.key)
        await #expect(throws: AttestedKeyInUse()) { try await test.accounts.create(attestedKey: Self.key) }
        // Another key is another account.
        let other = AttestedKey(keyID: [UInt8](repeating: 0xC3, count: 32), publicKey: Self.key.publicKey, counter: 0)
        #expect(try await test.accounts.attestedKey(of: try test.accounts.create(attestedKey: other).account.id) == other)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedAccountsKeyMakesANewAccount(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (first, _) = try await test.accounts.create(attestedKey: Self.key)
        try await test.accounts.delete(first.id)
        // The deleted row is still there, marked, until the purge.
        let (second, _) = try await test.accounts.create(attestedKey: Self.key)
        #expect(try await test.accounts.attestedKey(of: second.id) == Self.key)
        #expect(try await test.accounts.attestedKey(of: first.id) == nil)
        let purger = Purger(store: test.store)
        while try await purger.step() {}
        try await test.accounts.delete(second.id)
        while try await purger.step() {}
        #expect(try await test.accounts.create(attestedKey: Self.key).account.id != second.id)
    }

    @Test(arguments: StoreKind.allCases)
    func theIndexRefusesASecondLiveAccountEvenWithoutTheCheck(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        _ = try await test.accounts.create(attestedKey: Self.key)
        #expect {
            try test.store.write { db in
                try db.statement(Accounts.SQL.insertAttested).run(
                    .text("acc_01arz3ndektsv4rrffq69g5fav"), .blob([UInt8](repeating: 9, count: 32)), .integer(1),
                    .blob(Self.key.keyID), .blob(Self.key.publicKey), .integer(0))
            }
        } throws: { error in
            String(describing: error).contains("UNIQUE constraint failed: accounts.attest_key_id")
        }
    }
}
