import Clock
@testable import Relaydeck
import SQLite
import Testing

/// The purge backlog of `/metrics`: what deletions wait for the purge, read through the
/// partial indexes of deleted rows, a bounded number of them.
@Suite struct PurgeBacklogTests {
    @Test(arguments: StoreKind.allCases)
    func nothingDeletedIsNoBacklog(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        _ = try await test.account(withKeys: 2)
        #expect(try await PurgeBacklog.read(test.store) == PurgeBacklog(keys: 0, accounts: 0, textBytes: 0, oldestDeletedAt: nil))
    }

    @Test(arguments: StoreKind.allCases)
    func deletionsWaitUntilThePurgeRemovesThemAndTheTextFallsFirst(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 3)
        let person = Principal.account(accountID: account.id)
        for number in 0..<(Purger.batchSize + 50) {
            _ = try await test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("Task \(number)", .taskTitle)), host: nil)
        }
        let deletedAt = test.clock.wallMillis
        try await test.keys.delete(accountID: account.id, keyID: keys[0].key.id)
        test.clock.advance(millis: 5_000)
        let (other, _, _) = try await test.account(withKeys: 1)
        try await test.accounts.delete(other.id)

        let before = try await PurgeBacklog.read(test.store)
        // The deleted key, and the other account's key marked with it; one account.
        #expect(before.keys == 2 && before.accounts == 1)
        #expect(before.textBytes > 0)
        #expect(before.oldestDeletedAt == deletedAt)
        #expect(try await PurgeBacklog.read(test.store, cap: 1).keys == 1)

        // One step removes a batch of the tasks, and the other account with its key, which
        // owned nothing: the first key still waits, with less text, and is still the oldest.
        let purger = Purger(store: test.store)
        try await purger.step()
        let during = try await PurgeBacklog.read(test.store)
        #expect(during.keys == 1 && during.accounts == 0)
        #expect(during.textBytes > 0 && during.textBytes < before.textBytes)
        #expect(during.oldestDeletedAt == deletedAt)
        while try await purger.step() {}
        #expect(try await PurgeBacklog.read(test.store) == PurgeBacklog(keys: 0, accounts: 0, textBytes: 0, oldestDeletedAt: nil))
    }

    @Test func everyReadGoesThroughThePartialIndexOfDeletedRows() throws {
        let test = try TestStore(.memory)
        let plans = try test.store.read { db in
            try [(PurgeBacklog.pendingKeys(.sqlite), [SQLiteValue.integer(5)]), (PurgeBacklog.pendingAccounts(.sqlite), [.integer(5)]),
                 (PurgeBacklog.oldestKey(.sqlite), []), (PurgeBacklog.oldestAccount(.sqlite), [])].map { sql, values in
                try db.rows("EXPLAIN QUERY PLAN " + sql, values) { try $0.text("detail") }.joined(separator: "; ")
            }
        }
        #expect(plans[0].contains("USING INDEX keys_deleted"), "\(plans[0])")
        #expect(plans[1].contains("COVERING INDEX accounts_deleted"), "\(plans[1])")
        #expect(plans[2].contains("COVERING INDEX keys_deleted"), "\(plans[2])")
        #expect(plans[3].contains("COVERING INDEX accounts_deleted"), "\(plans[3])")
        // The indexes hold only deleted rows: a walk of one is the backlog, not the table.
        for plan in plans {
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
            for table in ["keys", "accounts"] where plan.contains("SCAN \(table)") {
                #expect(plan.contains("SCAN \(table) USING"), "\(plan)")
            }
        }
    }
}
