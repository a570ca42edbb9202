import Clock
import DomainTestSupport
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

/// `Store`: unavailable while the file cannot be opened or stays locked, and working again
/// (without a restart) once the cause is gone.
@Suite struct StoreRecoveryTests {
    @Test func aPathInAMissingDirectoryIsUnavailableUntilItExists() async throws {
        let directory = TemporaryDirectory()
        let monotonic = ManualClock()
        let store = Store(path: directory.file("later/relaydeck.db"), clock: monotonic)
        var recoveries = 0
        store.onRecovered = { recoveries += 1 }
        let clock = ManualClock()
        let accounts = Accounts(store: store, clock: clock, random: SeededRandom(), hub: EventHub())

        #expect(try store.open() == false)
        #expect(store.isOpen == false)
        await expectUnavailable { _ = try await accounts.create() }
        expectUnavailable { _ = try store.read { _ in 1 } }
        expectUnavailable { _ = try store.write { _ in 1 } }
        #expect(store.isHealthy() == false)

        // Created, but the store tries again at most once a second.
        directory.makeDirectory("later")
        monotonic.advance(millis: 999)
        await expectUnavailable { _ = try await accounts.create() }
        #expect(recoveries == 0)

        monotonic.advance(millis: 1)
        let (account, _) = try await accounts.create()
        #expect(store.isOpen)
        #expect(recoveries == 1)
        #expect(try await accounts.get(account.id) == account)
        #expect(store.isHealthy())
        #expect(recoveries == 1)
        store.close()
    }

    @Test func aFailedRetryWaitsAnotherSecond() throws {
        let directory = TemporaryDirectory()
        let monotonic = ManualClock()
        let store = Store(path: directory.file("later/relaydeck.db"), clock: monotonic)
        // No open(): the first operation opens.
        expectUnavailable { _ = try store.read { _ in 1 } }
        monotonic.advance(millis: 1_000)
        expectUnavailable { _ = try store.read { _ in 1 } }
        directory.makeDirectory("later")
        monotonic.advance(millis: 500)
        expectUnavailable { _ = try store.read { _ in 1 } }
        monotonic.advance(millis: 500)
        #expect(try store.read { _ in 7 } == 7)
        store.close()
    }

    @Test func aWriteLockHeldElsewhereIsUnavailableUntilReleased() async throws {
        var options = Database.Options()
        options.busyTimeoutMillis = 50
        let test = try TestStore(.file, options: options)
        var recoveries = 0
        test.store.onRecovered = { recoveries += 1 }
        let (account, _) = try await test.accounts.create()

        let other = try Database(path: test.path, options: options)
        try other.execute("BEGIN IMMEDIATE")
        try other.execute("UPDATE accounts SET live_activities = 0")
        await expectUnavailable { _ = try await test.accounts.create() }
        await expectUnavailable { _ = try await test.accounts.update(account.id, liveActivities: true) }
        // WAL: reads still see the last commit.
        #expect(try await test.accounts.get(account.id).liveActivities == true)
        #expect(test.store.isHealthy())
        try other.execute("COMMIT")

        // The same connection works again at once: no reopen, no wait.
        #expect(try await test.accounts.get(account.id).liveActivities == false)
        let (second, _) = try await test.accounts.create()
        #expect(try await test.accounts.get(second.id) == second)
        #expect(test.store.isOpen)
        // The first write that works again ends the failure, once.
        #expect(recoveries == 1)
        _ = try await test.accounts.create()
        #expect(recoveries == 1)
        other.close()
    }

    @Test func aFileThatIsNotADatabaseIsUnavailableUntilReplaced() throws {
        let directory = TemporaryDirectory()
        let monotonic = ManualClock()
        let path = directory.file("relaydeck.db")
        TemporaryDirectory.write(Array(repeating: 0x41, count: 4096), to: path)
        let store = Store(path: path, clock: monotonic)
        #expect(try store.open() == false)
        #expect(store.isHealthy() == false)

        TemporaryDirectory.removeTree(path)
        monotonic.advance(millis: 1_000)
        #expect(store.isHealthy())
        store.close()
    }

    @Test func aSchemaNewerThanKnownStopsTheOpen() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("relaydeck.db")
        let newer = try Database(path: path)
        try newer.execute("PRAGMA user_version = \(Schema.version + 1)")
        newer.close()

        let monotonic = ManualClock()
        let store = Store(path: path, clock: monotonic)
        #expect(throws: MigrationError.newerSchema(found: Schema.version + 1, known: Schema.version)) { try store.open() }
        #expect(store.isOpen == false)
        // Operations do not open it behind the caller's back either.
        monotonic.advance(millis: 1_000)
        expectUnavailable { _ = try store.read { _ in 1 } }
        #expect(store.isHealthy() == false)
    }

    @Test func openCreatesTheSchemaOnceAndReopensWithoutMigrating() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("relaydeck.db")
        let first = Store(path: path)
        #expect(try first.open())
        #expect(try first.read { try $0.userVersion } == Schema.version)
        first.close()
        let second = Store(path: path)
        #expect(try second.open())
        #expect(try second.read { try $0.userVersion } == Schema.version)
        second.close()
    }
}
