@testable import Relaydeck
import SQLite
import Testing

/// The SQL of the code against the schema of the migrations: every statement compiles, and a
/// column the decoders read that the schema lacks is a loud failure, not an empty value.
@Suite struct SchemaMatchTests {
    static let statements: [String] = [
        Accounts.SQL.insert, Accounts.SQL.select, Accounts.SQL.updateLiveActivities, Accounts.SQL.markDeleted,
        Accounts.SQL.markKeysDeleted,
        Keys.SQL.list, Keys.SQL.get, Keys.SQL.countLive, Keys.SQL.insert, Keys.SQL.updateLabel, Keys.SQL.updateScopes, Keys.SQL.markDeleted,
        Keys.SQL.touch, Keys.SQL.setHost, Keys.SQL.client,
        Authenticator.SQL.account, Authenticator.SQL.key,
        Purger.SQL.deleteKeys, Purger.SQL.deleteAccounts, Purger.SQL.pending,
        Questions.SQL.get, Questions.SQL.listForKey(.sqlite), Questions.SQL.listForAccount(.sqlite), Questions.SQL.taskOfKey,
        Questions.SQL.countPending, Questions.SQL.insert, Questions.SQL.answer, Questions.SQL.cancel,
        Questions.SQL.expire, Questions.SQL.dueAccounts, Questions.SQL.dueOfAccount, Questions.SQL.dueOfKey, Questions.SQL.pendingOfTask, Questions.SQL.nextExpiry,
        Devices.SQL.get, Devices.SQL.list, Devices.SQL.exists, Devices.SQL.count, Devices.SQL.releaseToken,
        Devices.SQL.upsert, Devices.SQL.delete, Devices.SQL.deleteLiveActivities, Devices.SQL.deleteJobsOfDevice,
        Devices.SQL.deleteJobsOfToken,
        LiveActivities.SQL.taskOfAccount, LiveActivities.SQL.upsert, LiveActivities.SQL.delete, LiveActivities.SQL.ofTask,
        ActivityLog.SQL.insert, ActivityLog.SQL.trim, ActivityLog.SQL.firstPage, ActivityLog.SQL.nextPage, ActivityLog.SQL.newestKept,
        Retention.SQL.deleteActivity, TaskSQL.bumpSeq, TaskSQL.currentSeq, TaskSQL.moveCount,
        TaskSQL.unchanged(byKey: true, .sqlite), TaskSQL.unchanged(byKey: false, .sqlite), TaskSQL.moved(.sqlite),
        WebSignIn.SQL.insertLink, WebSignIn.SQL.selectLink, WebSignIn.SQL.deleteLink, WebSignIn.SQL.deleteExpiredLinks,
        WebSignIn.SQL.deleteLinksOfAccount, WebSignIn.SQL.insertSession, WebSignIn.SQL.selectSession,
        WebSignIn.SQL.selectSessions, WebSignIn.SQL.touchSession, WebSignIn.SQL.deleteSession, WebSignIn.SQL.deleteIdleSessions,
        WebSignIn.SQL.deleteSessionsOfAccount, WebSignIn.SQL.insertPasskey, WebSignIn.SQL.selectCredential,
        WebSignIn.SQL.selectPasskeys, WebSignIn.SQL.selectPasskey, WebSignIn.SQL.deletePasskey, WebSignIn.SQL.usePasskey,
        WebSignIn.SQL.deletePasskeysOfAccount, StorageQuota.SQL.used,
    ] + Purger.SQL.deleteOwned + [Purger.SQL.deleteActivity(.sqlite)]

    @Test(arguments: statements)
    func everyStatementCompilesAgainstTheMigratedSchema(sql: String) throws {
        let test = try TestStore(.memory)
        try test.store.read { db in _ = try db.prepare(sql) }
    }

    @Test func aRenamedColumnFailsTheReadInsteadOfReadingEmpty() async throws {
        let test = try TestStore(.memory)
        let (account, _, _) = try await test.account(withKeys: 1)
        try test.store.write { db in
            try db.execute("ALTER TABLE keys ADD COLUMN title TEXT")
            try db.execute("UPDATE keys SET title = label")
            try db.execute("ALTER TABLE keys DROP COLUMN label")
        }
        await #expect(throws: StoreError.self) { try await test.keys.list(accountID: account.id) }
    }

    @Test func aColumnThatTurnedNullFailsTheRead() async throws {
        let test = try TestStore(.memory)
        let (account, _, _) = try await test.account(withKeys: 1)
        // A copy without the NOT NULL constraints, as a hand-edited file might be.
        try test.store.write { db in
            try db.execute("CREATE TABLE loose AS SELECT * FROM keys")
            try db.execute("UPDATE loose SET prefix = NULL")
        }
        let error = #expect(throws: StoreError.self) {
            try test.store.read { db in
                let statement = try db.prepare("SELECT \(Keys.SQL.columns) FROM loose")
                let row = try #require(try statement.nextRow())
                _ = try Key(row: row, accountID: account.id)
            }
        }
        guard case .failure(let detail)? = error else { Issue.record("not a store failure"); return }
        #expect(detail.contains("the result column prefix is NULL"))
    }
}
