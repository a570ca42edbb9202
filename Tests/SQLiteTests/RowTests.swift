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

    @Test func numbersAndBooleansAreCheckedToo() throws {
        let db = try TestStore(.memory).open()
        let row = try row(db, "SELECT 'x' AS text, 2 AS two, 1.5 AS real")
        #expect(throws: SQLiteError.self) { try row.int64("text") }
        #expect(throws: SQLiteError.self) { try row.int64("real") }
        #expect(throws: SQLiteError.self) { try row.bool("two") }
        #expect(throws: SQLiteError.self) { try row.blob("text") }
    }
}
