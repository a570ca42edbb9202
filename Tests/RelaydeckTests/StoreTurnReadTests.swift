import Clock
import DomainTestSupport
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

/// `Store.endOfTurn`: the reads of one loop turn share one read transaction, which a write
/// ends first and the end of the turn ends in any case.
@Suite struct StoreTurnReadTests {
    /// A store whose "loop turn" ends when the test says so, beside a second connection
    /// to the same file (another process: an operator's command, a backup).
    final class Harness {
        let directory = TemporaryDirectory()
        let store: Store
        let other: Database
        var endOfTurn: [() -> Void] = []

        init() throws {
            let path = directory.file("relaydeck.db")
            var options = Database.Options()
            options.busyTimeoutMillis = 0
            store = Store(path: path, options: options)
            #expect(try store.open())
            try store.write { db in try db.execute("CREATE TABLE notes (n INTEGER)") }
            other = try Database(path: path, options: options)
            store.endOfTurn = { [unowned self] work in endOfTurn.append(work) }
        }

        deinit {
            other.close()
            store.close()
        }

        func endTurn() {
            while !endOfTurn.isEmpty {
                let work = endOfTurn
                endOfTurn.removeAll()
                for item in work { item() }
            }
        }

        func count() throws -> Int {
            try store.read { db in
                let statement = try db.prepare("SELECT count(*) FROM notes")
                _ = try statement.step()
                return statement.int(0)
            }
        }
    }

    @Test func readsOfOneTurnShareASnapshotAndTheNextTurnSeesNewCommits() throws {
        let test = try Harness()
        #expect(try test.count() == 0)
        #expect(test.endOfTurn.count == 1)
        try test.other.execute("INSERT INTO notes VALUES (1)")
        // The same turn: the same snapshot, and no second end is scheduled.
        #expect(try test.count() == 0)
        #expect(test.endOfTurn.count == 1)
        test.endTurn()
        #expect(try test.count() == 1)
        test.endTurn()
    }

    /// A write in the turn ends the read first: it is not refused for an old snapshot
    /// (SQLITE_BUSY_SNAPSHOT), and the reads after it see it.
    @Test func aWriteAfterAReadOfTheTurnWorksFromTheNewestStateAndIsSeen() throws {
        let test = try Harness()
        #expect(try test.count() == 0)
        try test.other.execute("INSERT INTO notes VALUES (1)")
        try test.store.write { db in try db.execute("INSERT INTO notes VALUES (2)") }
        #expect(try test.count() == 2)
        test.endTurn()
        #expect(try test.count() == 2)
        test.endTurn()
    }

    /// The group commit's lock (`tryBeginWork`) also ends the read, and reads inside the
    /// write transaction schedule nothing.
    @Test func theTurnsWriteLockEndsTheReadAndReadsInsideItNeedNoEnd() throws {
        let test = try Harness()
        #expect(try test.count() == 0)
        try test.other.execute("INSERT INTO notes VALUES (1)")
        let work = try #require(try test.store.tryBeginWork())
        try test.store.write { db in try db.execute("INSERT INTO notes VALUES (2)") }
        #expect(try test.count() == 2)
        try work.commit()
        test.endTurn()
        #expect(test.endOfTurn.isEmpty)
    }

    /// Once the turn ended no lock is left: another connection can truncate the WAL, which
    /// needs every reader gone.
    @Test func afterTheTurnNoReadLockIsHeld() throws {
        let test = try Harness()
        try test.store.write { db in try db.execute("INSERT INTO notes VALUES (1)") }
        #expect(try test.count() == 1)
        // While the read is open a full truncating checkpoint cannot finish...
        #expect(throws: SQLiteError.self) { try test.other.checkpoint(.truncate) }
        test.endTurn()
        // ... and once it ended, it can.
        try test.other.checkpoint(.truncate)
    }

    /// Without `endOfTurn` (tests, operator commands) every statement reads on its own.
    @Test func withoutAnEndOfTurnNoTransactionStaysOpen() throws {
        let test = try Harness()
        test.store.endOfTurn = nil
        #expect(try test.count() == 0)
        try test.other.execute("INSERT INTO notes VALUES (1)")
        #expect(try test.count() == 1)
        try test.other.checkpoint(.truncate)
    }
}
