import Glibc
import SQLite
import Testing

@Suite struct DurabilityTests {
    @Test(arguments: StoreKind.allCases)
    func checkSucceedsOnAHealthyStore(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.check()
        try db.execute("CREATE TABLE t(x)")
        try db.check()
    }

    @Test func checkpointTruncateLeavesAnEmptyWAL() throws {
        let store = TestStore(.file)
        let db = try store.open()
        try db.execute("CREATE TABLE t(x)")
        for value in 0..<100 { try db.statement("INSERT INTO t VALUES (?)").run(.integer(Int64(value))) }
        #expect((fileSize(store.walPath) ?? 0) > 0)
        try db.checkpoint()
        #expect(fileSize(store.walPath) == 0)
        #expect(try db.count("t") == 100)
        try db.checkpoint(.passive)
        try db.checkpoint(.full)
        try db.checkpoint(.restart)
    }

    @Test func checkpointOfAnInMemoryStoreDoesNothing() throws {
        let db = try TestStore(.memory).open()
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try db.checkpoint()
        #expect(try db.count("t") == 1)
    }

    @Test func committedRowsSurviveReopening() throws {
        let store = TestStore(.file)
        do {
            let db = try store.open()
            _ = try Migrator.migrate(db, [Migration(version: 1, name: "t", sql: "CREATE TABLE t(x TEXT)")])
            try db.transaction { try db.statement("INSERT INTO t VALUES (?)").run("kept") }
            db.close()
            db.close()
        }
        let db = try store.open()
        #expect(try db.userVersion == 1)
        #expect(try db.scalar("SELECT x FROM t") == "kept")
    }

    /// What a crash leaves on disk is the database file and the WAL: a copy of both, taken
    /// while the writer is still open and nothing was checkpointed, must hold every
    /// committed row and none of an open transaction.
    @Test func committedRowsAreOnDiskBeforeAnyCheckpoint() throws {
        let store = TestStore(.file)
        let db = try store.open()
        try db.execute("CREATE TABLE t(x TEXT)")
        try db.checkpoint()
        try db.transaction { try db.statement("INSERT INTO t VALUES (?)").run("committed") }
        try db.execute("BEGIN IMMEDIATE")
        try db.statement("INSERT INTO t VALUES (?)").run("in flight")

        let copy = store.directory + "/copy.db"
        writeFile(copy, try #require(readFile(store.path)))
        writeFile(copy + "-wal", try #require(readFile(store.walPath)))
        let recovered = try Database(path: copy)
        #expect(try recovered.scalar("SELECT group_concat(x) FROM t") == "committed")
        recovered.close()
        try db.execute("ROLLBACK")
    }
}
