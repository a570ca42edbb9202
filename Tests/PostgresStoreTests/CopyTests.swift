import Postgres
@testable import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// `StoreCopy` from a SQLite file into a database of the test cluster: every row of every
/// table, the counts as they were, the sequences past the copied numbers, the triggers on
/// again; each refusal leaves the database as the migrations left it.
@Suite struct CopyTests {
    struct Copied {
        let result: Result<[StoreCopy.TableCopied], StoreCopyError>
        let progress: [StoreCopy.TableCopied]
    }

    static func copy(_ file: String, _ driver: StoreTestDriver, _ connection: PostgresConnection,
                     limits: StoreCopy.Limits = StoreCopy.Limits()) throws -> Copied {
        let snapshot = try SQLiteSnapshot(path: file)
        defer { snapshot.close() }
        let copy = StoreCopy(snapshot: snapshot, connection: connection, loop: driver.loop, limits: limits)
        var progress: [StoreCopy.TableCopied] = []
        copy.onTableCopied = { progress.append($0) }
        let result = try driver.wait { copy.run(completion: $0) }
        return Copied(result: result, progress: progress)
    }

    /// Every table's rows in both stores, as sorted lines of text.
    static func compareEveryTable(_ file: String, _ driver: StoreTestDriver, _ connection: PostgresConnection) throws {
        let snapshot = try SQLiteSnapshot(path: file)
        let tables = snapshot.tables
        snapshot.close()
        let sqlite = try Database(path: file)
        defer { sqlite.close() }
        for table in tables {
            let rowid = Self.rowidTables.contains(table.name) ? ["rowid"] : []
            let sql = "SELECT \((rowid + table.columns.map(\.name)).joined(separator: ", ")) FROM \(table.name)"
            let statement = try sqlite.prepare(sql)
            var fromSQLite: [String] = []
            while try statement.step() {
                fromSQLite.append((0..<statement.columnCount).map { column in
                    switch statement.value(column) {
                    case .null: "NULL"
                    case .integer(let number): String(number)
                    case .real(let number): String(number)
                    case .text(let text): "'" + text + "'"
                    case .blob(let bytes): "x" + bytes.map { String($0, radix: 16) }.joined(separator: ".")
                    }
                }.joined(separator: "|"))
            }
            let fromPostgres = try driver.query(connection, sql).map { row in
                try row.columnNames.map { name -> String in
                    if try row.isNull(name) { return "NULL" }
                    if let number = try? row.int64(name) { return String(number) }
                    if let bytes = try? row.bytes(name) { return "x" + bytes.map { String($0, radix: 16) }.joined(separator: ".") }
                    return "'" + (try row.text(name)) + "'"
                }.joined(separator: "|")
            }
            #expect(fromPostgres.sorted() == fromSQLite.sorted(), "\(table.name)")
        }
    }

    static let rowidTables = SchemaMatchTests.rowidTables

    @Test func everyRowOfEveryTableIsCopiedAndTheDatabaseWorksOnFromThere() throws {
        let directory = TemporaryDirectory()
        let file = try FilledStore.make(in: directory)
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        let copied = try Self.copy(file, driver, connection)
        let tables = try copied.result.get()
        #expect(tables == copied.progress)
        #expect(tables.count == 23)
        #expect(tables.first { $0.table == "inbox_items" }?.rows == 3)
        #expect(tables.first { $0.table == "push_jobs" }?.rows == 2)
        try Self.compareEveryTable(file, driver, connection)
        #expect(try driver.history(connection).count == Schema.version)

        // The counts were copied as they were (the triggers were off), and count again now.
        let counts = "SELECT id, text_bytes FROM keys ORDER BY id"
        let before = try driver.query(connection, counts).map { try $0.int64("text_bytes") }
        #expect(before == [92, 25, 18])
        _ = try driver.query(connection, """
            INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at) VALUES ('itm_9', 'acc_1', 'key_1', 'message', 'four', 23)
            """)
        #expect(try driver.query(connection, counts).map { try $0.int64("text_bytes") } == [before[0] + 4, before[1], before[2]])

        // New rows get numbers after the copied ones: a rowid after the largest, a push job
        // after the one SQLite had handed out and deleted.
        let key = try driver.query(connection, """
            INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at) VALUES ('key_4', 'acc_1', 'New', '\\xAA04', 'mck_', 'nnnn', 2) RETURNING rowid
            """)
        #expect(try key.first?.int64("rowid") == 4)
        let job = try driver.query(connection, """
            INSERT INTO push_jobs (account_id, device_id, token_kind, environment, token, push_type, topic, priority, payload, due_at, created_at)
            VALUES ('acc_1', 'dev_1', 'apns', 'sandbox', 'aa11', 'alert', 'app', 10, '\\x00', 53, 53) RETURNING id
            """)
        #expect(try job.first?.int64("id") == 4)
        let item = try driver.query(connection, "SELECT rowid FROM inbox_items WHERE id = 'itm_9'")
        #expect(try item.first?.int64("rowid") == 4)
    }

    @Test func smallBatchesCarryManyRowsInOrder() throws {
        let directory = TemporaryDirectory()
        let file = try FilledStore.make(in: directory)
        let sqlite = try Database(path: file)
        try sqlite.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO activity (key_id, at, id, surface, action, status, duration_ms, message)
                SELECT 'key_2', 1000 + i, 'act_n' || i, 'rest', 'GET /v1/tasks', 'ok', i, printf('%.*c', i, 'm') FROM n;
            """)
        sqlite.close()
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        var limits = StoreCopy.Limits()
        limits.maxRowsPerBatch = 7
        limits.maxBatchBytes = 2_000
        limits.maxBatchesInFlight = 2
        let copied = try Self.copy(file, driver, connection, limits: limits)
        let tables = try copied.result.get()
        #expect(tables.first { $0.table == "activity" }?.rows == 502)
        #expect(copied.progress.map(\.table) == tables.map(\.table))
        try Self.compareEveryTable(file, driver, connection)
    }

    @Test func aDatabaseThatHoldsRowsIsRefusedAndKeepsThem() throws {
        let directory = TemporaryDirectory()
        let file = try FilledStore.make(in: directory)
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try Self.copy(file, driver, connection).result.get()
        let again = try Self.copy(file, driver, connection)
        guard case .targetNotEmpty(let tables)? = again.result.failure else {
            Issue.record("not refused as not empty: \(again.result)")
            return
        }
        #expect(tables.count == 23 && tables.contains("accounts") && tables.contains("changes"))
        #expect(again.result.failure?.description.hasPrefix("the PostgreSQL database holds rows already (in accounts, keys, ") == true)
        #expect(again.progress.isEmpty)
        try Self.compareEveryTable(file, driver, connection)
        // The triggers were turned off inside the transaction that rolled back: on still.
        let enabled = try driver.query(connection, "SELECT count(*) AS n FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'O'")
        #expect(try enabled.first?.int64("n") == 12)
    }

    @Test func aStoreAtAnOlderVersionIsRefusedBeforeTheDatabaseIsTouched() throws {
        let directory = TemporaryDirectory()
        let file = try FilledStore.make(in: directory, version: Schema.version - 1)
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        let copied = try Self.copy(file, driver, connection)
        guard case .sourceOutdated(let found, let current)? = copied.result.failure else {
            Issue.record("not refused as outdated: \(copied.result)")
            return
        }
        #expect(found == Schema.version - 1 && current == Schema.version)
        #expect(copied.result.failure?.description.contains("start this relaydeckd on it once") == true)
        #expect(try driver.query(connection, "SELECT to_regclass('schema_migrations') IS NULL AS missing").first?.bool("missing") == true)
    }

    @Test(arguments: [("X'41004243'", "the text holds a NUL character, which PostgreSQL's text cannot hold"),
                      ("X'41FF42'", "the text is not valid UTF-8")])
    func aTextPostgreSQLCannotHoldIsRefusedAndNothingIsCommitted(bytes: String, problem: String) throws {
        let directory = TemporaryDirectory()
        let file = try FilledStore.make(in: directory)
        let sqlite = try Database(path: file)
        try sqlite.execute("UPDATE tasks SET description = CAST(\(bytes) AS TEXT) WHERE id = 'tsk_2'")
        sqlite.close()
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        let copied = try Self.copy(file, driver, connection)
        guard case .unreadableValue(let table, let row, let column, let found)? = copied.result.failure else {
            Issue.record("not refused: \(copied.result)")
            return
        }
        #expect([table, row, column, found] == ["tasks", "rowid 2", "description", problem])
        try Self.expectNothingCopied(driver, connection)
    }

    /// A rule (which `DISABLE TRIGGER USER` leaves on) adds a row the file does not have: the
    /// check before COMMIT finds the table that differs and rolls everything back.
    @Test func aDifferenceFoundBeforeCommitRollsTheCopyBack() throws {
        let directory = TemporaryDirectory()
        let file = try FilledStore.make(in: directory)
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.migrate(connection).get()
        _ = try driver.query(connection, """
            CREATE RULE extra_passkey AS ON INSERT TO keys WHERE NEW.id = 'key_3' DO ALSO
            INSERT INTO passkeys (id, account_id, credential_id, public_key, sign_count, name, created_at)
            VALUES ('psk_x', 'acc_2', '\\x09', '\\x09', 0, 'Stowaway', 1)
            """)
        let copied = try Self.copy(file, driver, connection)
        guard case .verificationFailed(let differences)? = copied.result.failure else {
            Issue.record("not refused: \(copied.result)")
            return
        }
        #expect(differences.map(\.table) == ["passkeys"])
        #expect(differences.first?.expected.rows == 1 && differences.first?.found.rows == 2)
        #expect(copied.result.failure?.description.hasPrefix("the copy was rolled back, as PostgreSQL does not hold what was read: passkeys: SQLite 1 row, checksum ") == true)
        try Self.expectNothingCopied(driver, connection)
    }

    static func expectNothingCopied(_ driver: StoreTestDriver, _ connection: PostgresConnection) throws {
        for table in ["accounts", "keys", "tasks", "passkeys", "activity"] {
            #expect(try driver.query(connection, "SELECT count(*) AS n FROM \(table)").first?.int64("n") == 0, "\(table)")
        }
        #expect(try driver.query(connection, "SELECT seq FROM changes").first?.int64("seq") == 0)
    }

    @Test func theChecksumIsTheSameOnBothSidesAndMovesWithAnyByte() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.query(connection, "CREATE TABLE sample (n bigint, t text, b bytea)")
        let rows: [[StoredValue]] = [
            [.integer(-1), .text(Array("ünï 😀".utf8)), .blob([0, 255])],
            [.null, .text([]), .blob([])],
            [.integer(Int64.max), .null, .null],
            [.integer(Int64.min), .text(Array("a".utf8)), .blob(Array("a".utf8))],
        ]
        var expected = TableChecksum()
        for row in rows {
            expected.add(row)
            let values: [PostgresValue] = row.map {
                switch $0 {
                case .integer(let number): .integer(number)
                case .text(let bytes): .text(String(decoding: bytes, as: UTF8.self))
                case .blob(let bytes): .bytes(bytes)
                default: .null
                }
            }
            _ = try driver.query(connection, "INSERT INTO sample VALUES ($1, $2, $3)", values)
        }
        let sql = TableChecksum.postgresSQL(table: "sample", columns: [("n", .integer), ("t", .text), ("b", .blob)])
        let read = { () throws -> TableChecksum in
            let row = try #require(try driver.query(connection, sql).first)
            return TableChecksum(rows: try row.int64("row_count"), sum: try #require(Int128(try row.text("checksum"))))
        }
        #expect(try read() == expected)
        #expect(expected.rows == 4 && expected.sum != 0)
        // NULL and empty, text and blob of the same bytes: each a different row.
        _ = try driver.query(connection, "UPDATE sample SET b = NULL WHERE n IS NULL")
        #expect(try read() != expected)
    }
}
