import PostgresStore
import Relaydeck
import SQLite
import Testing

/// The store session's contract, the same assertions against SQLite and PostgreSQL: what a
/// service writes through one comes back the same from the other.
@Suite struct StoreSessionTests {
    static let dialects: [StoreDialect] = [.sqlite, .postgres]

    @Test(arguments: dialects)
    func textsComeBackAsWrittenUnicodeAndEmptyIncluded(_ dialect: StoreDialect) throws {
        let texts = ["", "plain", "Résumé ✓", "😀 and 👩‍👩‍👧", "日本語", "tab\tline\nend", "quotes ' \" `"]
        let harness = try SessionHarness.withItems(dialect)
        let read = try harness.run { db in
            for (index, text) in texts.enumerated() {
                try await db.run(ItemsTable.insertName, .integer(Int64(index)), .text(text))
            }
            return try await db.rows("SELECT name FROM items ORDER BY id") { try $0.text("name") }
        }
        #expect(read == texts)
    }

    @Test(arguments: dialects)
    func textsSortAndCompareByTheirBytes(_ dialect: StoreDialect) throws {
        let names = ["b", "B", "a", "Z", "é", "e", "😀", "ﬀ", "", "ab", "a b", "_", "Ä", "z", "~"]
        let byBytes = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let harness = try SessionHarness.withItems(dialect)
        let (sorted, afterZ) = try harness.run { db in
            for (index, name) in names.enumerated() {
                try await db.run(ItemsTable.insertName, .integer(Int64(index)), .text(name))
            }
            let sorted = try await db.rows("SELECT name FROM items ORDER BY name") { try $0.text("name") }
            let afterZ = try await db.rows("SELECT name FROM items WHERE name > $1 ORDER BY name", "Z") { try $0.text("name") }
            return (sorted, afterZ)
        }
        #expect(sorted == byBytes)
        #expect(afterZ == Array(byBytes.drop { $0 != "Z" }.dropFirst()))
        #expect(afterZ.first == "_")
    }

    @Test(arguments: dialects)
    func integersComeBackWholeToBothEndsOfInt64(_ dialect: StoreDialect) throws {
        let numbers: [Int64] = [.max, 0, .min, -1, 1, Int64(Int32.max) + 1, .min + 1]
        let harness = try SessionHarness.withItems(dialect)
        let (inOrder, byValue, found) = try harness.run { db in
            for (index, number) in numbers.enumerated() {
                try await db.run("INSERT INTO items (id, amount) VALUES ($1, $2)", .integer(Int64(index)), .integer(number))
            }
            let inOrder = try await db.rows("SELECT amount FROM items ORDER BY id") { try $0.int64("amount") }
            let byValue = try await db.rows("SELECT amount FROM items ORDER BY amount") { try $0.optionalInt64("amount") }
            let found = try await db.firstRow("SELECT id FROM items WHERE amount = $1", .integer(.min)) { try $0.int("id") }
            return (inOrder, byValue, found)
        }
        #expect(inOrder == numbers)
        #expect(byValue == numbers.sorted())
        #expect(found == 2)
    }

    @Test(arguments: dialects)
    func doublesComeBackBitForBit(_ dialect: StoreDialect) throws {
        let doubles: [Double] = [0, 1.5, -2.25, .pi, 0.1, 1e300, -1e-300, .greatestFiniteMagnitude,
                                 .leastNormalMagnitude, .infinity, -.infinity]
        let harness = try SessionHarness.withItems(dialect)
        let read = try harness.run { db in
            for (index, number) in doubles.enumerated() {
                try await db.run("INSERT INTO items (id, ratio) VALUES ($1, $2)", .integer(Int64(index)), .real(number))
            }
            return try await db.rows("SELECT ratio FROM items ORDER BY id") { try $0.double("ratio") }
        }
        #expect(read.map(\.bitPattern) == doubles.map(\.bitPattern))
    }

    @Test(arguments: dialects)
    func blobsComeBackWithTheirZeroBytesAndEmptyIsNotNull(_ dialect: StoreDialect) throws {
        let blobs: [[UInt8]] = [[], [0], [0, 0, 0], [0, 1, 2, 254, 255, 0], (0..<1024).map { UInt8($0 % 256) }]
        let harness = try SessionHarness.withItems(dialect)
        let (read, empty) = try harness.run { db in
            for (index, blob) in blobs.enumerated() {
                try await db.run("INSERT INTO items (id, data) VALUES ($1, $2)", .integer(Int64(index)), .blob(blob))
            }
            let read = try await db.rows("SELECT data FROM items ORDER BY id") { try $0.blob("data") }
            let empty = try await db.firstRow("SELECT data FROM items WHERE id = 0") { row in
                (try row.isNull("data"), try row.optionalBlob("data"))
            }
            return (read, empty)
        }
        #expect(read == blobs)
        #expect(empty?.0 == false)
        #expect(empty?.1 == [])
    }

    @Test(arguments: dialects)
    func nullsReadAsNilAndRefuseTheRequiredReaders(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        try harness.run { db in
            try await db.run("INSERT INTO items (id, name, amount, data) VALUES ($1, $2, $3, $4)", 1, nil, nil, nil)
            let row = try await db.firstRow("SELECT id, name, amount, ratio, data, flag FROM items") { row in
                (try row.optionalText("name"), try row.optionalInt64("amount"), try row.optionalBlob("data"),
                 try ["name", "amount", "ratio", "data", "flag", "id"].map { try row.isNull($0) })
            }
            #expect(row?.0 == nil)
            #expect(row?.1 == nil)
            #expect(row?.2 == nil)
            #expect(row?.3 == [true, true, true, true, true, false])
            for read: (any StoreRow) throws -> Void in [
                { _ = try $0.text("name") }, { _ = try $0.int64("amount") }, { _ = try $0.int("amount") },
                { _ = try $0.double("ratio") }, { _ = try $0.blob("data") }, { _ = try $0.bool("flag") },
            ] {
                await #expect(throws: (any Error).self) { try await db.firstRow("SELECT * FROM items", [], read) }
            }
        }
    }

    @Test(arguments: dialects)
    func runCountsTheRowsAnInsertUpdateOrDeleteChanged(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let counts = try harness.run { db in
            var counts: [Int] = []
            counts.append(try await db.run(ItemsTable.insertID, 1))
            counts.append(try await db.run("INSERT INTO items (id) VALUES ($1) ON CONFLICT DO NOTHING", 1))
            counts.append(try await db.run("UPDATE items SET amount = 1 WHERE id = $1", 99))
            for id in 2...5 { try await db.run(ItemsTable.insertID, .integer(Int64(id))) }
            counts.append(try await db.run("UPDATE items SET amount = $1 WHERE id >= $2", 7, 3))
            counts.append(try await db.run("UPDATE items SET amount = $1 WHERE id = $2", 8, 1))
            counts.append(try await db.run("DELETE FROM items WHERE id = $1", 99))
            counts.append(try await db.run("DELETE FROM items WHERE amount = $1", 7))
            counts.append(try await db.run("DELETE FROM items"))
            return counts
        }
        #expect(counts == [1, 0, 0, 3, 1, 0, 3, 2])
    }

    @Test(arguments: dialects)
    func aParameterUsedAgainBindsTheSameValue(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let row = try harness.run { db in
            try await db.run("INSERT INTO items (id, name, code, amount) VALUES ($1, $2, $2, $1)", 4, "same")
            try await db.run(ItemsTable.insertName, 5, "other")
            return try await db.rows("SELECT id, name, code, amount FROM items WHERE (name = $1 OR code = $1) AND id >= $2 AND amount = $2",
                                     "same", 4) { row in
                [try row.text("name"), try row.text("code"), String(try row.int64("id")), String(try row.int64("amount"))]
            }
        }
        #expect(row == [["same", "same", "4", "4"]])
    }

    #if DEBUG
    @Test(arguments: dialects)
    func sqlWhoseParametersFirstAppearOutOfOrderIsRefusedInBoth(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let (refused, rows) = try harness.run { db in
            var refused: [StoreSessionError.Kind?] = []
            for sql in ["SELECT id FROM items WHERE name = $2 AND id = $1", "SELECT id FROM items WHERE id = $1 OR id = $3"] {
                let error = await #expect(throws: StoreSessionError.self) { try await db.rows(sql, 1, "x", 3) { try $0.int("id") } }
                refused.append(error?.kind)
            }
            let error = await #expect(throws: StoreSessionError.self) { try await db.run("INSERT INTO items (id, name) VALUES ($2, $1)", "x", 1) }
            refused.append(error?.kind)
            // A `$2` in a literal is no parameter.
            let rows = try await db.rows("SELECT id FROM items WHERE name = '$2' OR id = $1", 1) { try $0.int("id") }
            return (refused, rows)
        }
        #expect(refused == [.parametersOutOfOrder, .parametersOutOfOrder, .parametersOutOfOrder])
        #expect(rows.isEmpty)
    }
    #endif

    @Test func theParameterRuleSkipsLiteralsNamesAndComments() throws {
        for sql in [
            "SELECT $1, $2, $1, $3", "SELECT '$3' || $1", "SELECT \"a$3\" FROM t WHERE x = $1", "SELECT a$3 FROM t WHERE x = $1",
            "SELECT $1 -- $3\n, $2", "SELECT /* $4 */ $1", "SELECT 'it''s $2', $1", "SELECT 1",
        ] {
            #expect(throws: Never.self, "\(sql)") { try ParameterOrder.check(sql) }
        }
        for sql in ["SELECT $2", "SELECT $1, $3", "SELECT $1, '$2' || $3", "SELECT $10, $1"] {
            #expect(throws: StoreSessionError.self, "\(sql)") { try ParameterOrder.check(sql) }
        }
    }
}

