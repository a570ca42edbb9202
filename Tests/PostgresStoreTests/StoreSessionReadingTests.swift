import PostgresStore
import Relaydeck
import SQLite
import Testing

/// Reading what a session returns: booleans, rows that are not there, columns that are not,
/// and many rows.
@Suite struct StoreSessionReadingTests {
    static let dialects = StoreSessionTests.dialects

    @Test(arguments: dialects)
    func boolReadsTheIntegersZeroAndOneAndABooleanAndRefusesOtherIntegers(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let (literals, flags) = try harness.run { db in
            // `true` and `false` are PostgreSQL's booleans and SQLite's 1 and 0.
            let literals = try await db.firstRow("SELECT 1 AS yes, 0 AS no, true AS t, false AS f") { row in
                [try row.bool("yes"), try row.bool("no"), try row.bool("t"), try row.bool("f")]
            }
            try await db.run("INSERT INTO items (id, flag) VALUES ($1, $2)", 1, true)
            try await db.run("INSERT INTO items (id, flag) VALUES ($1, $2)", 2, false)
            try await db.run("INSERT INTO items (id, flag) VALUES ($1, $2)", 3, 2)
            let flags = try await db.rows("SELECT flag FROM items WHERE id < 3 ORDER BY id") { try $0.bool("flag") }
            await #expect(throws: (any Error).self) { try await db.firstRow("SELECT flag FROM items WHERE id = 3") { try $0.bool("flag") } }
            await #expect(throws: (any Error).self) { try await db.firstRow("SELECT 2 AS two") { try $0.bool("two") } }
            return (literals, flags)
        }
        #expect(literals == [true, false, true, false])
        #expect(flags == [true, false])
    }

    @Test(arguments: dialects)
    func theFirstRowOfNothingIsNilAndExistsAndCountSayWhatIsThere(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let (none, emptyRows, found) = try harness.run { db in
            let none = try await db.firstRow("SELECT id FROM items WHERE id = $1", 5) { try $0.int("id") }
            let emptyRows = try await db.rows(ItemsTable.ids) { try $0.int("id") }
            let before = (try await db.exists("SELECT 1 FROM items WHERE id = $1", 5), try await db.count("SELECT count(*) AS n FROM items"))
            for id: Int64 in [4, 5, 6] { try await db.run(ItemsTable.insertID, .integer(id)) }
            let after = (try await db.exists("SELECT 1 FROM items WHERE id = $1", 5),
                         try await db.count("SELECT count(*) AS n FROM items WHERE id > $1", 4))
            return (none, emptyRows, [before.0, before.1 == 0, after.0, after.1 == 2])
        }
        #expect(none == nil)
        #expect(emptyRows.isEmpty)
        #expect(found == [false, true, true, true])
    }

    @Test(arguments: dialects)
    func readingAColumnTheResultLacksThrowsTheDialectsError(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let error = try harness.run { db -> (any Error)? in
            try await db.run(ItemsTable.insertName, 1, "one")
            do {
                _ = try await db.firstRow("SELECT id, name FROM items") { try $0.text("missing") }
                return nil
            } catch {
                return error
            }
        }
        #expect(error.map { isNativeError($0, dialect) } == true, "\(String(describing: error))")
    }

    @Test(arguments: dialects)
    func aDoubleIsNotReadFromAnIntegerColumn(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        try harness.run { db in
            try await db.run("INSERT INTO items (id, amount, ratio) VALUES ($1, $2, $3)", 1, 2, 2.5)
            #expect(try await db.firstRow("SELECT ratio FROM items") { try $0.double("ratio") } == 2.5)
            await #expect(throws: (any Error).self) { try await db.firstRow("SELECT amount FROM items") { try $0.double("amount") } }
        }
    }

    @Test(arguments: dialects)
    func tenThousandRowsComeBackInOrder(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let (inserted, rows) = try harness.run { db in
            let inserted = try await db.run("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1) \
                INSERT INTO items (id, amount, name) SELECT i, i * 2, 'row ' || i FROM n
                """, 10_000)
            let rows = try await db.rows("SELECT id, amount, name FROM items ORDER BY id") { row in
                (try row.int64("id"), try row.int64("amount"), try row.text("name"))
            }
            return (inserted, rows)
        }
        #expect(inserted == 10_000)
        #expect(rows.count == 10_000)
        #expect(rows.map(\.0) == Array(1...10_000))
        #expect(rows.allSatisfy { $0.1 == $0.0 * 2 && $0.2 == "row \($0.0)" })
    }
}
