@testable import Relaydeck
import Testing

@Suite struct PurgerTests {
    @Test(arguments: StoreKind.allCases)
    func removesDeletedAccountsAndTheirKeysInBatches(kind: StoreKind) throws {
        let test = try TestStore(kind)
        var accounts: [(account: Account, token: Secret, keys: [(key: Key, secret: Secret)])] = []
        for _ in 0..<30 {
            accounts.append(try test.account(withKeys: 20))
        }
        let doomed = accounts.prefix(25)
        let kept = accounts.suffix(5)
        for entry in doomed {
            try test.accounts.delete(entry.account.id)
        }
        let purger = Purger(store: test.store)
        #expect(try purger.hasWork())

        // 500 keys: 200, 200, then 100 with the 25 accounts they freed; a last step finds
        // nothing.
        var steps: [Bool] = []
        while try purger.step() {
            steps.append(true)
            if steps.count > 10 { break }
        }
        steps.append(false)
        #expect(steps == [true, true, true, false])

        #expect(try purger.hasWork() == false)
        #expect(try test.rowCount("accounts") == 5)
        #expect(try test.rowCount("keys") == 100)
        for entry in doomed {
            #expect(try test.rowCount("accounts", where: "id = '\(entry.account.id)'") == 0)
            #expect(try test.rowCount("keys", where: "account_id = '\(entry.account.id)'") == 0)
        }
        for entry in kept {
            #expect(try test.accounts.get(entry.account.id) == entry.account)
            #expect(try test.keys.list(accountID: entry.account.id).count == 20)
            #expect(try test.authenticator.authenticate(Substring(entry.token.text)) == .account(accountID: entry.account.id))
            #expect(try test.authenticator.authenticate(Substring(entry.keys[19].secret.text))?.accountID == entry.account.id)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func accountsWithoutKeysGoInBatchesToo(kind: StoreKind) throws {
        let test = try TestStore(kind)
        for _ in 0..<250 {
            let (account, _) = try test.accounts.create()
            try test.accounts.delete(account.id)
        }
        let live = try test.accounts.create().account
        let purger = Purger(store: test.store)
        #expect(try purger.step() == true)
        #expect(try test.rowCount("accounts") == 51)
        #expect(try purger.step() == false)
        #expect(try test.rowCount("accounts") == 1)
        #expect(try test.accounts.get(live.id) == live)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedKeyGoesAndItsLiveAccountStays(kind: StoreKind) throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try test.account(withKeys: 3)
        let purger = Purger(store: test.store)
        #expect(try purger.hasWork() == false)
        #expect(try purger.step() == false)

        try test.keys.delete(accountID: account.id, keyID: keys[1].key.id)
        #expect(try purger.hasWork())
        #expect(try test.rowCount("keys") == 3)
        #expect(try purger.step() == true)
        #expect(try purger.step() == false)
        #expect(try purger.hasWork() == false)
        #expect(try test.rowCount("keys") == 2)
        #expect(try test.rowCount("keys", where: "id = '\(keys[1].key.id)'") == 0)
        #expect(try test.keys.list(accountID: account.id).map(\.id) == [keys[2].key.id, keys[0].key.id])
    }

    @Test(arguments: StoreKind.allCases)
    func nothingToDoOnAnEmptyStore(kind: StoreKind) throws {
        let test = try TestStore(kind)
        let purger = Purger(store: test.store)
        #expect(try purger.hasWork() == false)
        #expect(try purger.step() == false)
    }
}
