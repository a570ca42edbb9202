import Glibc
import SQLite
import Testing

@Suite struct ErrorTests {
    @Test(arguments: StoreKind.allCases)
    func constraintViolationKeepsTheSQLButNotTheValues(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute("CREATE TABLE accounts(email TEXT UNIQUE NOT NULL)")
        let sql = "INSERT INTO accounts(email) VALUES (?)"
        try db.statement(sql).run("secret@example.com")
        let error = #expect(throws: SQLiteError.self) {
            try db.statement(sql).run("secret@example.com")
        }
        #expect(error?.code == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error?.primaryCode == 19)
        #expect(error?.isConstraintViolation == true)
        #expect(error?.isUnavailable == false)
        #expect(error?.message == "UNIQUE constraint failed: accounts.email")
        #expect(error?.sql == sql)
        #expect(error?.description
            == "SQLite error 2067 (UNIQUE constraint failed: accounts.email) in: INSERT INTO accounts(email) VALUES (?)")
        #expect(error?.description.contains("secret") == false)

        let notNull = #expect(throws: SQLiteError.self) { try db.statement(sql).run(nil) }
        #expect(notNull?.code == 1299)  // SQLITE_CONSTRAINT_NOTNULL
        // The statement and the connection are fine afterwards.
        #expect(try db.statement(sql).run("other@example.com") == 1)
        #expect(try db.count("accounts") == 2)
    }

    @Test func busyAfterTheTimeoutWhileAnotherConnectionWrites() throws {
        let store = TestStore(.file)
        var options = Database.Options()
        options.busyTimeoutMillis = 100
        let db = try store.open(options)
        try db.execute("CREATE TABLE t(x)")
        let other = try store.open()
        try other.execute("BEGIN IMMEDIATE")

        let start = monotonicMillis()
        let error = #expect(throws: SQLiteError.self) {
            try db.statement("INSERT INTO t VALUES (?)").run(1)
        }
        #expect(monotonicMillis() - start >= 80)  // it waited for the busy timeout first
        #expect(error?.primaryCode == 5)  // SQLITE_BUSY
        #expect(error?.isUnavailable == true)
        #expect(error?.message == "database is locked")

        let begin = #expect(throws: SQLiteError.self) {
            try db.transaction { try db.execute("INSERT INTO t VALUES (2)") }
        }
        #expect(begin?.primaryCode == 5)
        #expect(begin?.sql == "BEGIN IMMEDIATE")
        #expect(db.isInTransaction == false)

        // Reads still work under WAL while another connection writes.
        #expect(try db.count("t") == 0)

        try other.execute("COMMIT")
        try db.statement("INSERT INTO t VALUES (?)").run(1)
        try db.transaction { try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try other.count("t") == 2)
    }

    @Test func cannotOpenInAMissingDirectory() throws {
        let store = TestStore(.file)
        let directory = store.directory + "/missing"
        let path = directory + "/relaydeck.db"
        let error = #expect(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error?.primaryCode == 14)  // SQLITE_CANTOPEN
        #expect(error?.isUnavailable == true)
        #expect(error?.message == "unable to open database file")

        #expect(mkdir(directory, 0o700) == 0)
        defer { removeDirectory(directory) }
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t(x)")
        #expect(try db.scalar("PRAGMA journal_mode") == "wal")
    }

    @Test func aFileOfGarbageIsNotADatabase() throws {
        let store = TestStore(.file)
        writeFile(store.path, [UInt8](repeating: 0x5A, count: 4096))
        let error = #expect(throws: SQLiteError.self) { try store.open() }
        #expect(error?.primaryCode == 26)  // SQLITE_NOTADB
        #expect(error?.isUnavailable == true)
        #expect(error?.message == "file is not a database")
        // The file was left as it was.
        #expect(readFile(store.path) == [UInt8](repeating: 0x5A, count: 4096))

        unlink(store.path)
        let db = try store.open()
        try db.execute("CREATE TABLE t(x)")
        try db.check()
    }

    @Test(arguments: StoreKind.allCases)
    func fullStoreIsUnavailableUntilThereIsRoom(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute("CREATE TABLE big(b BLOB)")
        guard case .integer(let pages) = try db.scalar("PRAGMA page_count") else {
            Issue.record("no page count")
            return
        }
        try db.execute("PRAGMA max_page_count = \(pages)")
        let insert = "INSERT INTO big VALUES (zeroblob(100000))"

        let error = #expect(throws: SQLiteError.self) { try db.statement(insert).run() }
        #expect(error?.primaryCode == 13)  // SQLITE_FULL
        #expect(error?.isUnavailable == true)
        #expect(error?.sql == insert)
        let inTransaction = #expect(throws: SQLiteError.self) {
            try db.transaction { try db.statement(insert).run() }
        }
        #expect(inTransaction?.primaryCode == 13)
        #expect(db.isInTransaction == false)
        #expect(try db.count("big") == 0)

        try db.execute("PRAGMA max_page_count = 1000000")
        try db.statement(insert).run()
        try db.transaction { try db.statement(insert).run() }
        #expect(try db.count("big") == 2)
    }

    @Test func unavailableCoversTheStoreConditionsOnly() {
        let unavailable: [Int32] = [5, 6, 13, 10, 14, 8, 26, 11, 3, 7, 15, 22, 23, 517, 778, 3338, 1038]
        for code in unavailable {
            #expect(SQLiteError(code: code, message: "").isUnavailable, "code \(code)")
        }
        let other: [Int32] = [1, 2, 4, 9, 12, 18, 19, 20, 21, 25, 2067, 516]
        for code in other {
            #expect(SQLiteError(code: code, message: "").isUnavailable == false, "code \(code)")
        }
        #expect(SQLiteError(code: 1555, message: "").isConstraintViolation)  // PRIMARYKEY
        #expect(SQLiteError(code: 1, message: "").isConstraintViolation == false)
        #expect(SQLiteError(code: 2067, message: "").primaryCode == 19)
    }

    @Test func descriptionWithoutSQL() {
        #expect(SQLiteError(code: 5, message: "database is locked").description == "SQLite error 5 (database is locked)")
        #expect(SQLiteError(code: 5, message: "database is locked", sql: "COMMIT").description
            == "SQLite error 5 (database is locked) in: COMMIT")
    }
}

@Suite struct ReconnectClassificationTests {
    /// A full disk or a failed write keeps the connection (reads still work); a file that is
    /// gone, unreadable or not a database gets a new one.
    @Test(arguments: [
        (5, false), (6, false), (13, false), (19, false),  // BUSY, LOCKED, FULL, CONSTRAINT
        (778, false), (1034, false), (1290, false), (1546, false),  // IOERR_WRITE, _FSYNC, _DIR_FSYNC, _TRUNCATE
        (10, true), (266, true), (522, true),  // IOERR, IOERR_READ, IOERR_SHORT_READ
        (11, true), (14, true), (26, true),  // CORRUPT, CANTOPEN, NOTADB
    ] as [(Int32, Bool)])
    func whichErrorsNeedANewConnection(code: Int32, reconnect: Bool) {
        #expect(SQLiteError(code: code, message: "m").needsNewConnection == reconnect)
    }
}
