import Clock
import DomainTestSupport
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

@Suite struct StoreDurabilityTests {
    @Test(arguments: StoreKind.allCases)
    func anOpenStoreIsHealthy(kind: StoreKind) throws {
        let test = try TestStore(kind)
        #expect(test.store.isOpen)
        #expect(test.store.isHealthy())
    }

    @Test func closeEmptiesTheWriteAheadLog() async throws {
        let test = try TestStore(.file)
        for _ in 0..<5 {
            _ = try await test.account(withKeys: 3)
        }
        let wal = test.path + "-wal"
        #expect((TemporaryDirectory.size(of: wal) ?? 0) > 0)
        test.store.close()
        #expect(test.store.isOpen == false)
        #expect((TemporaryDirectory.size(of: wal) ?? 0) == 0)
        // Idempotent.
        test.store.close()
    }

    @Test func committedRowsSurviveCloseAndReopen() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("relaydeck.db")
        let clock = ManualClock()
        let random = SeededRandom()

        let first = Store(path: path)
        #expect(try first.open())
        let accounts = Accounts(store: first, clock: clock, random: random, hub: EventHub())
        let keys = Keys(store: first, clock: clock, random: random, hub: EventHub())
        let (account, token) = try await accounts.create()
        _ = try await accounts.update(account.id, liveActivities: false)
        let (key, secret) = try await keys.create(accountID: account.id, label: checked("Cursor"))
        first.close()

        let second = Store(path: path)
        #expect(try second.open())
        let reopenedAccounts = Accounts(store: second, clock: clock, random: random, hub: EventHub())
        let reopenedKeys = Keys(store: second, clock: clock, random: random, hub: EventHub())
        let authenticator = Authenticator(store: second, clock: clock)
        #expect(try await reopenedAccounts.get(account.id) == Account(id: account.id, createdAt: account.createdAt, liveActivities: false))
        #expect(try await reopenedKeys.list(accountID: account.id) == [key])
        #expect(try await authenticator.authenticate(Substring(token.text)) == .account(accountID: account.id))
        #expect(try await authenticator.authenticate(Substring(secret.text))?.credentialID == key.id)
        second.close()
    }

    /// A body that throws leaves nothing behind: a write is one transaction.
    @Test(arguments: StoreKind.allCases)
    func aFailedWriteCommitsNothing(kind: StoreKind) throws {
        let test = try TestStore(kind)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try test.store.write { db in
                try db.execute("INSERT INTO accounts (id, token_hash, created_at) VALUES ('acc_x', x'00', 1)")
                throw Stop()
            }
        }
        #expect(try test.rowCount("accounts") == 0)
    }

    /// An SQL error that no outside condition explains is a defect, not "unavailable".
    @Test(arguments: StoreKind.allCases)
    func aConstraintFailureIsAStoreFailure(kind: StoreKind) throws {
        let test = try TestStore(kind)
        do {
            try test.store.write { db in
                try db.execute("INSERT INTO accounts (id, token_hash, created_at) VALUES ('acc_x', x'00', 1)")
                try db.execute("INSERT INTO accounts (id, token_hash, created_at) VALUES ('acc_x', x'01', 1)")
            }
            Issue.record("the duplicate insert succeeded")
        } catch StoreError.failure(let detail) {
            #expect(detail.contains("UNIQUE constraint failed: accounts.id"))
        }
        #expect(try test.rowCount("accounts") == 0)
        #expect(test.store.isOpen)
    }
}
