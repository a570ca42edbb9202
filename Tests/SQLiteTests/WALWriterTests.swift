import CSQLiteVFS
import SQLite
import Testing

/// The WAL writer (`Sources/CSQLiteVFS`): a commit's frames reach the WAL with one write
/// system call, all of them before the COMMIT returns, and what is on disk is what SQLite
/// wrote.
@Suite struct WALWriterTests {
    /// A table and a transaction of `rows` rows of `size` bytes, on `db`.
    func insert(_ db: Database, rows: Int, size: Int, from first: Int = 0) throws {
        try db.transaction {
            for index in first..<(first + rows) {
                try db.statement("INSERT INTO t VALUES (?, ?)").run(.integer(Int64(index)), .text(String(repeating: "x", count: size)))
            }
        }
    }

    @Test func aCommitOfManyPagesIsOneWrite() throws {
        let store = TestStore(.file)
        let db = try store.open()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        let before = relaydeck_wal_writer_writes()
        // About 13 pages of 4 KiB, and their frames' headers: 26 calls without the writer.
        try insert(db, rows: 50, size: 1_000)
        #expect(relaydeck_wal_writer_writes() - before == 1)
        #expect(relaydeck_wal_writer_pending_bytes() == 0)
        #expect(try db.count("t") == 50)
    }

    @Test func aCommitLargerThanTheBufferIsWrittenInPartsAndWhole() throws {
        let store = TestStore(.file)
        let db = try store.open()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        let before = relaydeck_wal_writer_writes()
        // About 2 MiB of pages (a row of 4,000 bytes takes a page of its own): parts of at
        // most 120 KiB, each below the default VFS's limit of one write.
        try insert(db, rows: 250, size: 4_000)
        let calls = relaydeck_wal_writer_writes() - before
        #expect(calls >= 9 && calls <= 20, "\(calls)")
        #expect(relaydeck_wal_writer_pending_bytes() == 0)
        #expect(try db.scalar("SELECT sum(length(body)) FROM t") == .integer(1_000_000))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    /// Another connection (the checkpoint thread's, an operator's `sqlite3`) reads what each
    /// COMMIT wrote as soon as it returned, and a checkpoint copies it.
    @Test func anotherConnectionSeesEachCommitAtOnce() throws {
        let store = TestStore(.file)
        let writer = try store.open()
        try writer.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        let reader = try store.open()
        for round in 0..<20 {
            try insert(writer, rows: 7, size: 300 + round * 50, from: round * 7)
            #expect(try reader.count("t") == Int64((round + 1) * 7))
            if round % 6 == 5 { try reader.checkpoint(.passive) }
        }
        try writer.checkpoint()
        #expect(try reader.scalar("SELECT count(*) FROM t WHERE length(body) >= 300") == .integer(140))
    }

    /// What a crash leaves (the database file and the WAL, copied while the writer is open,
    /// nothing checkpointed): every committed row, written through the writer, is there.
    @Test func theWALOnDiskHoldsEveryCommittedFrame() throws {
        let store = TestStore(.file)
        let db = try store.open()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        try db.checkpoint()
        for round in 0..<10 {
            try insert(db, rows: 30, size: 500, from: round * 30)
        }
        let copy = store.directory + "/copy.db"
        writeFile(copy, try #require(readFile(store.path)))
        writeFile(copy + "-wal", try #require(readFile(store.walPath)))
        let recovered = try Database(path: copy)
        #expect(try recovered.count("t") == 300)
        #expect(try recovered.scalar("PRAGMA integrity_check") == .text("ok"))
        recovered.close()
    }

    /// A transaction rolled back writes no frame; the next COMMIT after it is whole.
    @Test func aRollbackLeavesNothingPendingAndTheNextCommitIsWhole() throws {
        let store = TestStore(.file)
        let db = try store.open()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute("BEGIN IMMEDIATE")
        try db.statement("INSERT INTO t VALUES (?, ?)").run(.integer(1), .text("gone"))
        try db.execute("ROLLBACK")
        #expect(relaydeck_wal_writer_pending_bytes() == 0)
        try insert(db, rows: 5, size: 100, from: 2)
        #expect(relaydeck_wal_writer_pending_bytes() == 0)
        #expect(try db.count("t") == 5)
    }
}
