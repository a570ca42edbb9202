import SQLite
import Testing

@Suite struct BackupTests {
    @Test func aBackupIsAWholeDatabaseOfItsOwn() throws {
        let store = TestStore(.file)
        let db = try store.open()
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
        let copyPath = store.path + ".copy"
        try db.backup(to: copyPath, pagesPerStep: 1)
        // Written after the backup: not in the copy.
        try db.execute("INSERT INTO t VALUES (4)")
        let copy = try Database(path: copyPath)
        defer { copy.close() }
        let statement = try copy.prepare("SELECT count(*) AS n FROM t")
        let row = try #require(try statement.nextRow())
        #expect(try row.int("n") == 3)
        try copy.execute("PRAGMA integrity_check")
    }

    @Test func anInMemoryDatabaseBacksUpToAFile() throws {
        let db = try TestStore(.memory).open()
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES ('kept')")
        let target = TestStore(.file)
        try db.backup(to: target.path)
        let path = target.path
        let copy = try Database(path: path)
        defer { copy.close() }
        let row = try #require(try copy.prepare("SELECT x FROM t").nextRow())
        #expect(try row.text("x") == "kept")
    }
}
