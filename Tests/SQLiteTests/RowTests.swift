import SQLite
import Testing

/// Rows by column name: a decoder out of step with its query fails loudly, naming the column.
@Suite struct RowTests {
    private func row(_ db: Database, _ sql: String) throws -> Row {
        let statement = try db.prepare(sql)
        return try #require(try statement.nextRow())
    }

    @Test(arguments: StoreKind.allCases)
    func columnsAreReadByName(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let row = try row(db, "SELECT 'Cursor' AS label, 7 AS n, NULL AS gone, 1 AS flag, x'00ff' AS hash")
        #expect(try row.text("label") == "Cursor")
        #expect(try row.int("n") == 7)
        #expect(try row.optionalText("gone") == nil)
        #expect(try row.optionalInt64("gone") == nil)
        #expect(try row.bool("flag"))
        #expect(try row.blob("hash") == [0x00, 0xFF])
    }

    @Test(arguments: [
        ("missing", "the result has no column missing"),
        ("gone", "the result column gone is NULL"),
        ("n", "the result column n is not TEXT"),
    ])
    func aColumnOutOfStepIsAnErrorNotAnEmptyString(name: String, message: String) throws {
        let db = try TestStore(.memory).open()
        let row = try row(db, "SELECT 'Cursor' AS label, 7 AS n, NULL AS gone")
        let error = #expect(throws: SQLiteError.self) { try row.text(name) }
        #expect(error?.code == 20)
        #expect(error?.message == message)
        #expect(error?.sql == "SELECT 'Cursor' AS label, 7 AS n, NULL AS gone")
    }

    /// Names are found wherever they are read from: in the SELECT's order (the quick path),
    /// backwards, twice, and over several rows of one statement.
    @Test func columnsReadInAnyOrderGiveTheirOwnValues() throws {
        let db = try TestStore(.memory).open()
        let statement = try db.prepare("SELECT value AS a, value * 10 AS b, value * 100 AS c FROM json_each('[1, 2, 3]')")
        var seen: [[Int]] = []
        while let row = try statement.nextRow() {
            seen.append([try row.int("c"), try row.int("a"), try row.int("b"), try row.int("c"), try row.int("a"),
                         try row.int("b"), try row.int("c")])
        }
        #expect(seen == [[100, 1, 10, 100, 1, 10, 100], [200, 2, 20, 200, 2, 20, 200], [300, 3, 30, 300, 3, 30, 300]])
    }

    /// A name two columns share reads the same column whichever order the reads come in (the
    /// last one of that name, as before the in-order path existed).
    @Test func aNameOfTwoColumnsAlwaysReadsTheSameOne() throws {
        let db = try TestStore(.memory).open()
        let statement = try db.prepare("SELECT 1 AS x, 2 AS y, 3 AS x")
        let row = try #require(try statement.nextRow())
        #expect(try row.int("x") == 3)
        #expect(try row.int("y") == 2)
        #expect(try row.int("x") == 3)
        let again = try db.prepare("SELECT 1 AS x, 2 AS y, 3 AS x")
        let first = try #require(try again.nextRow())
        #expect(try first.int("y") == 2)
        #expect(try first.int("x") == 3)
    }

    @Test func numbersAndBooleansAreCheckedToo() throws {
        let db = try TestStore(.memory).open()
        let row = try row(db, "SELECT 'x' AS text, 2 AS two, 1.5 AS real")
        #expect(throws: SQLiteError.self) { try row.int64("text") }
        #expect(throws: SQLiteError.self) { try row.int64("real") }
        #expect(throws: SQLiteError.self) { try row.bool("two") }
        #expect(throws: SQLiteError.self) { try row.blob("text") }
    }
}
