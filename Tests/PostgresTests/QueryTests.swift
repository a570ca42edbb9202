import Testing
import TestSupport
@testable import Postgres

/// Statements against the real server: pipelined batches, prepared statements, parameters
/// and the types rows decode, transactions and savepoints, errors with their SQLSTATE.
@Suite struct QueryTests {
    let cluster = PostgresCluster.shared
    let driver: LoopDriver
    let connection: PostgresConnection

    init() throws {
        driver = try LoopDriver()
        connection = try driver.open(cluster.settings("rd_scram"))
        _ = try driver.run(connection, [PostgresQuery("CREATE TEMP TABLE items (id int8 PRIMARY KEY, label text NOT NULL, data bytea, flag bool)")]).get()
    }

    func ids() throws -> [Int64] {
        try driver.query(connection, "SELECT id FROM items ORDER BY id").get().rows.map { try $0.int64("id") }
    }

    @Test func aBatchIsAnsweredStatementByStatementInOrder() throws {
        let insert = "INSERT INTO items (id, label) VALUES ($1, $2)"
        let batch = try driver.run(connection, [
            PostgresQuery(insert, 1, "one"), PostgresQuery(insert, 2, "two"), PostgresQuery(insert, 3, "three"),
            PostgresQuery("SELECT id, label FROM items WHERE id >= $1 ORDER BY id", 2),
            PostgresQuery("UPDATE items SET label = upper(label)"),
        ]).get()
        #expect(batch.outcomes.count == 5)
        #expect(try batch.result(0).commandTag == "INSERT 0 1")
        let rows = try batch.result(3).rows
        #expect(try rows.map { try $0.text("label") } == ["two", "three"])
        #expect(try batch.result(4).rowsAffected == 3)
        #expect(batch.transactionStatus == .idle)
        // The INSERT was parsed once for the three of it.
        #expect(connection.preparedStatementCount == 4)
    }

    @Test func manyBatchesInFlightAreAnsweredInTheOrderSent() throws {
        var answers: [Int64] = []
        for n in 0..<50 {
            connection.query("SELECT $1::int8 AS n", [.integer(Int64(n))]) { result in
                if let row = try? result.get().rows.first, let value = try? row.int64("n") { answers.append(value) }
            }
        }
        #expect(connection.batchesInFlight > 1)
        driver.run { answers.count == 50 }
        #expect(answers == (0..<50).map(Int64.init))
    }

    @Test func aLargeResultComesWhole() throws {
        let rows = try driver.query(connection, "SELECT n FROM generate_series(1::int8, 200000::int8) AS n").get().rows
        #expect(rows.count == 200_000)
        #expect(try rows.last?.int64("n") == 200_000)
    }

    @Test func parametersAndTheTypesRowsDecode() throws {
        let blob: [UInt8] = [0, 1, 2, 0xFF, 0]
        _ = try driver.run(connection, [PostgresQuery("INSERT INTO items (id, label, data, flag) VALUES ($1, $2, $3, $4)",
                                                      .integer(Int64.max), .text("ünïcode ✓"), .bytes(blob), .bool(true))]).get()
        let row = try #require(try driver.query(connection, """
            SELECT id, label, data, flag, (id % 7)::int4 AS small, 2::int2 AS tiny, 1.5::float8 AS f8, 0.25::float4 AS f4,
                   '{"a": 1}'::jsonb AS document, NULL::text AS nothing, 'x'::varchar AS v
            FROM items WHERE id = $1
            """, [.integer(Int64.max)]).get().rows.first)
        #expect(try row.int64("id") == Int64.max)
        #expect(try row.text("label") == "ünïcode ✓")
        #expect(try row.bytes("data") == blob)
        #expect(try row.bool("flag"))
        #expect(try row.int64("tiny") == 2)
        #expect(try row.int64("small") == Int64.max % 7)
        #expect(try row.double("f8") == 1.5)
        #expect(try row.double("f4") == 0.25)
        #expect(try row.text("document") == "{\"a\": 1}")
        #expect(try row.optionalText("nothing") == nil)
        #expect(try row.isNull("nothing"))
        #expect(try row.text("v") == "x")
        #expect(row.columnNames.count == 11)
    }

    @Test func negativeNumbersKeepTheirSignAtEveryWidth() throws {
        let row = try #require(try driver.query(connection, "SELECT -2::int2 AS a, -70000::int4 AS b, $1::int8 AS c, $2::float8 AS d",
                                                [.integer(Int64.min), .double(-0.125)]).get().rows.first)
        #expect(try row.int64("a") == -2)
        #expect(try row.int64("b") == -70000)
        #expect(try row.int64("c") == Int64.min)
        #expect(try row.double("d") == -0.125)
    }

    /// Each parameter is written straight into its Bind: the empty ones, the texts a double
    /// has beside its digits, a false.
    @Test func theEdgesOfEachParameterKindReadBackAsSent() throws {
        let row = try #require(try driver.query(connection, """
            SELECT $1::text AS empty, octet_length($2::bytea)::int8 AS none, $3::float8 AS nan, $4::float8 AS low, \
            $5::bool AS no, $6::text IS NULL AS missing, $7::int8 AS zero
            """, [.text(""), .bytes([]), .double(.nan), .double(-.infinity), .bool(false), .null, .integer(0)]).get().rows.first)
        #expect(try row.text("empty") == "")
        #expect(try row.int64("none") == 0)
        #expect(try row.double("nan").isNaN)
        #expect(try row.double("low") == -.infinity)
        #expect(try !row.bool("no"))
        #expect(try row.bool("missing"))
        #expect(try row.int64("zero") == 0)
    }

    @Test func aColumnReadAsWhatItIsNotIsAMismatch() throws {
        let result = try driver.query(connection, "SELECT 1::int8 AS n, NULL::int8 AS m").get()
        let row = try #require(result.rows.first)
        #expect(throws: PostgresError(.mismatch, "the result column n is int8, not text", sql: "SELECT 1::int8 AS n, NULL::int8 AS m")) {
            try row.text("n")
        }
        #expect(throws: PostgresError(.mismatch, "the result has no column x", sql: "SELECT 1::int8 AS n, NULL::int8 AS m")) {
            try row.int64("x")
        }
        #expect(throws: PostgresError(.mismatch, "the result column m is NULL", sql: "SELECT 1::int8 AS n, NULL::int8 AS m")) {
            try row.int64("m")
        }
    }

    @Test func aTransactionRolledBackLeavesNothing() throws {
        let insert = "INSERT INTO items (id, label) VALUES ($1, $2)"
        let batch = try driver.run(connection, [.begin, PostgresQuery(insert, 10, "ten"), PostgresQuery(insert, 11, "eleven")]).get()
        #expect(batch.transactionStatus == .inTransaction)
        #expect(try ids() == [10, 11])
        let rolledBack = try driver.run(connection, [.rollback]).get()
        #expect(rolledBack.transactionStatus == .idle)
        #expect(try ids() == [])
    }

    @Test func aSavepointUndoesOnlyWhatCameAfterIt() throws {
        let insert = "INSERT INTO items (id, label) VALUES ($1, $2)"
        _ = try driver.run(connection, [.begin, PostgresQuery(insert, 1, "one"), .savepoint("s1"), PostgresQuery(insert, 2, "two")]).get()
        // A duplicate inside the savepoint fails the transaction until ROLLBACK TO.
        let failed = try driver.run(connection, [PostgresQuery(insert, 2, "again")]).get()
        #expect(failed.firstError?.sqlState == "23505")
        #expect(failed.transactionStatus == .failed)
        let undone = try driver.run(connection, [.rollbackToSavepoint("s1"), PostgresQuery(insert, 3, "three"), .commit]).get()
        #expect(undone.firstError == nil)
        #expect(undone.transactionStatus == .idle)
        #expect(try ids() == [1, 3])
    }

    @Test func aConstraintErrorCarriesItsSQLStateConstraintAndSQLButNoValue() throws {
        let insert = "INSERT INTO items (id, label) VALUES ($1, $2)"
        _ = try driver.run(connection, [PostgresQuery(insert, 7, "first")]).get()
        let batch = try driver.run(connection, [PostgresQuery(insert, 7, "secret-label"), PostgresQuery(insert, 8, "never")]).get()
        guard case .failed(let error) = batch.outcomes[0] else {
            Issue.record("the duplicate went in")
            return
        }
        #expect(error.sqlState == "23505")
        #expect(error.constraint == "items_pkey")
        #expect(error.sql == insert)
        #expect(error.isConstraintViolation)
        #expect(!error.description.contains("secret-label") && !error.description.contains("(7)"))
        #expect(throws: PostgresError(.skipped, "an earlier statement of its batch failed")) { try batch.result(1) }
        // The batch was one implicit transaction: nothing of it stayed.
        #expect(try ids() == [7])
        // The NOT NULL and the bad input: SQLSTATEs, and the value never shown.
        let null = try driver.query(connection, insert, [9, .null])
        #expect((try? null.get()) == nil)
        if case .failure(let nullError) = null { #expect(nullError.sqlState == "23502") }
        let bad = try driver.query(connection, "SELECT $1::int8 AS n", ["not-a-number-hunter2"])
        if case .failure(let badError) = bad {
            #expect(badError.sqlState == "22P02")
            #expect(!badError.description.contains("hunter2"))
        } else {
            Issue.record("text was read as an int8")
        }
    }

    @Test func aSyntaxErrorIsADefectAndTheConnectionGoesOn() throws {
        let result = try driver.query(connection, "SELEKT 1")
        guard case .failure(let error) = result else {
            Issue.record("SELEKT ran")
            return
        }
        #expect(error.sqlState == "42601")
        #expect(error.meaning == .defect(reconnect: false))
        #expect(try driver.query(connection, "SELECT 2 AS two").get().rows.count == 1)
    }

    @Test func aSchemaChangeUnderAPreparedStatementIsForgottenAndPreparedAgain() throws {
        _ = try driver.run(connection, [PostgresQuery("CREATE TEMP TABLE shapes (a int8)"), PostgresQuery("INSERT INTO shapes VALUES (1)")]).get()
        #expect(try driver.query(connection, "SELECT * FROM shapes").get().columns.count == 1)
        _ = try driver.run(connection, [PostgresQuery("ALTER TABLE shapes ADD COLUMN b text")]).get()
        // The cached plan's shape changed: the server refuses once (0A000), the client forgets it.
        let changed = try driver.query(connection, "SELECT * FROM shapes")
        if case .failure(let error) = changed { #expect(error.sqlState == "0A000") }
        #expect(try driver.query(connection, "SELECT * FROM shapes").get().columns.map(\.name) == ["a", "b"])
    }
}
