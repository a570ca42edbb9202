import SQLite
import Testing

@Suite struct StatementTests {
    static let schema = "CREATE TABLE v(id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB)"
    static let insert = "INSERT INTO v(i, r, t, b) VALUES (?, ?, ?, ?)"

    @Test(arguments: StoreKind.allCases)
    func roundTripsEveryType(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute(Self.schema)
        let insert = try db.statement(Self.insert)
        try insert.bind(Int64.min, at: 1)
        try insert.bind(-0.25, at: 2)
        try insert.bind("Grüße, 世界 🐢", at: 3)
        try insert.bind([0, 1, 0xFE, 0xFF], at: 4)
        #expect(try insert.run() == 1)
        #expect(db.lastInsertRowID == 1)
        try insert.bind(Int64.max, at: 1)
        try insert.bind(1e300, at: 2)
        try insert.bind("", at: 3)
        try insert.bind([UInt8](), at: 4)
        try insert.run()
        try insert.bind(Int(42), at: 1)
        try insert.bindNull(at: 2)
        try insert.bind(String?.none, at: 3)
        try insert.bind([UInt8]?.none, at: 4)
        try insert.run()
        try insert.bind(true, at: 1)
        try insert.bind(Double.nan, at: 2)  // SQLite stores NaN as NULL
        try insert.bind("a\0b", at: 3)
        try insert.bind(Array(repeating: 7, count: 100_000), at: 4)
        try insert.run()

        let select = try db.statement("SELECT i, r, t, b FROM v ORDER BY id")
        #expect(select.columnCount == 4)
        #expect(try select.step())
        #expect(select.int64(0) == Int64.min)
        #expect(select.double(1) == -0.25)
        #expect(select.string(2) == "Grüße, 世界 🐢")
        #expect(select.blob(3) == [0, 1, 0xFE, 0xFF])

        #expect(try select.step())
        #expect(select.int64(0) == Int64.max)
        #expect(select.double(1) == 1e300)
        #expect(select.string(2) == "")
        #expect(select.isNull(2) == false)
        #expect(select.blob(3) == [])
        #expect(select.isNull(3) == false)
        #expect(select.value(2) == .text(""))
        #expect(select.value(3) == .blob([]))

        #expect(try select.step())
        #expect(select.int(0) == 42)
        #expect(select.isNull(1) && select.isNull(2) && select.isNull(3))
        #expect(select.string(2) == nil)
        #expect(select.blob(3) == nil)
        #expect(select.value(1) == .null)

        #expect(try select.step())
        #expect(select.bool(0) == true)
        #expect(select.isNull(1))
        #expect(select.string(2) == "a\0b")
        #expect(select.string(2)?.utf8.count == 3)
        #expect(select.blob(3) == Array(repeating: 7, count: 100_000))

        #expect(try select.step() == false)
    }

    @Test(arguments: StoreKind.allCases)
    func runBindsSQLiteValues(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute(Self.schema)
        let insert = try db.statement(Self.insert)
        #expect(try insert.run(7, 2.5, "seven", .blob([7])) == 1)
        #expect(try insert.run(nil, nil, nil, nil) == 1)
        #expect(try insert.run(false, .real(-1), .text("x"), .blob([])) == 1)

        let select = try db.statement("SELECT i, r, t, b FROM v ORDER BY id")
        #expect(try select.step())
        #expect([select.value(0), select.value(1), select.value(2), select.value(3)] == [7, 2.5, "seven", .blob([7])])
        #expect(try select.step())
        #expect([select.value(0), select.value(1), select.value(2), select.value(3)] == [.null, .null, .null, .null])
        #expect(try select.step())
        #expect([select.value(0), select.value(1), select.value(2), select.value(3)] == [0, -1.0, "x", .blob([])])
    }

    @Test(arguments: StoreKind.allCases)
    func runReturnsTheRowsChanged(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
        #expect(try db.statement("UPDATE t SET x = x + 1 WHERE x >= ?").run(2) == 2)
        #expect(db.changes == 2)
        #expect(try db.statement("DELETE FROM t").run() == 3)
    }

    /// A nested use of the same SQL while the first is still going through its rows gets a
    /// statement of its own: resetting the shared one would end the outer loop early.
    @Test(arguments: StoreKind.allCases)
    func aStatementStillSteppingIsNotHandedOutAgain(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT x FROM t ORDER BY x"
        let outer = try db.statement(sql)
        var seen: [Int] = []
        var inner: [Int] = []
        while try outer.step() {
            seen.append(outer.int(0))
            let nested = try db.statement(sql)
            #expect(nested !== outer)
            while try nested.step() { inner.append(nested.int(0)) }
        }
        #expect(seen == [1, 2, 3])
        #expect(inner == [1, 2, 3, 1, 2, 3, 1, 2, 3])
        #expect(try db.statement(sql) === outer)
    }

    @Test(arguments: StoreKind.allCases)
    func statementCacheReturnsTheSameStatementReset(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT x FROM t WHERE x >= ?1 OR ?1 IS NULL ORDER BY x"
        let first = try db.statement(sql)
        try first.bind(2, at: 1)
        #expect(try first.step())
        #expect(first.int(0) == 2)

        // Finished with (reset), it comes back: the same object, unbound.
        first.reset()
        try first.bind(2, at: 1)
        let second = try db.statement(sql)
        #expect(first === second)
        #expect(try second.step())
        #expect(second.int(0) == 1)
        second.reset()

        let other = try db.prepare(sql)
        #expect(other !== first)
        #expect(try db.prepare(sql) !== other)
    }

    @Test(arguments: StoreKind.allCases)
    func stepResetsWhenDoneSoItCanRunAgain(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let select = try db.statement("SELECT ?")
        try select.bind("kept", at: 1)
        #expect(try select.step())
        #expect(try select.step() == false)
        #expect(try select.step())
        #expect(select.string(0) == "kept")
    }

    @Test(arguments: StoreKind.allCases)
    func bindingOutsideTheParametersThrowsRange(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let statement = try db.statement("SELECT ?, ?")
        #expect(statement.parameterCount == 2)
        let error = #expect(throws: SQLiteError.self) { try statement.bind(1, at: 3) }
        #expect(error?.code == 25)  // SQLITE_RANGE
        #expect(error?.sql == "SELECT ?, ?")
        #expect(throws: SQLiteError.self) { try statement.bind("x", at: 0) }
        let tooFew = #expect(throws: SQLiteError.self) { try statement.bind([1]) }
        #expect(tooFew?.code == 25)
        #expect(tooFew?.message == "1 values for 2 parameters")
        #expect(throws: SQLiteError.self) { try statement.run(1, 2, 3) }
    }

    @Test(arguments: StoreKind.allCases)
    func refusesTextWithMoreThanOneStatement(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let error = #expect(throws: SQLiteError.self) { try db.statement("SELECT 1; SELECT 2") }
        #expect(error?.code == 21)
        #expect(error?.message == "more than one SQL statement; use execute(_:) for scripts")
        #expect(throws: SQLiteError.self) { try db.prepare("SELECT 1;;  ;DROP TABLE x") }
        // Trailing semicolons, spaces and comments are not statements.
        #expect(try db.prepare("SELECT 1; -- done\n  /* really */ ;").step())
        let empty = #expect(throws: SQLiteError.self) { try db.statement("  -- nothing") }
        #expect(empty?.code == 21)
    }

    @Test(arguments: StoreKind.allCases)
    func prepareErrorKeepsTheSQL(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let error = #expect(throws: SQLiteError.self) { try db.statement("SELECT * FROM missing") }
        #expect(error?.code == 1)
        #expect(error?.message == "no such table: missing")
        #expect(error?.sql == "SELECT * FROM missing")
        #expect(error?.description == "SQLite error 1 (no such table: missing) in: SELECT * FROM missing")
    }

    @Test(arguments: StoreKind.allCases)
    func readsConvertBetweenStorageClasses(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let select = try db.statement("SELECT 12, '34', 2.75, NULL, x'41'")
        #expect(try select.step())
        #expect(select.string(0) == "12")
        #expect(select.int(1) == 34)
        #expect(select.int(2) == 2)
        #expect(select.int(3) == 0 && select.double(3) == 0 && select.bool(3) == false)
        #expect(select.string(4) == "A")
        // Out of range reads as NULL rather than trapping.
        #expect(select.isNull(99) && select.string(-1) == nil && select.blob(5) == nil)
    }
}
