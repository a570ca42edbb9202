#if canImport(Glibc)
import Glibc
#endif
import Postgres
@testable import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// SQLite's schema (`PRAGMA table_info` of a file the domain's migrations made) against
/// PostgreSQL's (`information_schema` of a database `PostgresMigrator` made): every table,
/// column, index and trigger of the one is in the other, typed alike. A SQLite migration added
/// without its PostgreSQL text fails here. PostgreSQL's change feed (`postgresOnlyTables`) is
/// the one thing SQLite has no counterpart of: its tables are expected besides SQLite's, and
/// their only indexes are their primary keys.
@Suite struct SchemaMatchTests {
    /// The tables whose rowid the domain's SQL reads (`ORDER BY rowid`, `DELETE ... WHERE rowid
    /// IN (SELECT rowid ... LIMIT ?)`): PostgreSQL gives each a `rowid` identity column.
    static let rowidTables: Set = [
        "accounts", "keys", "tasks", "questions", "inbox_items", "devices", "web_sessions", "web_login_links",
        "web_push_subscriptions",
    ]

    struct Schemas {
        let sqlite: [SQLiteTable]
        let postgres: [String: [PostgresRow]]
        let driver: StoreTestDriver
        let connection: PostgresConnection
    }

    static func schemas() throws -> Schemas {
        let directory = TemporaryDirectory()
        let database = try sqliteStore(in: directory)
        database.close()
        let snapshot = try SQLiteSnapshot(path: database.path)
        defer { snapshot.close() }
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.migrate(connection, PostgresSchema.migrations).get()
        var postgres: [String: [PostgresRow]] = [:]
        for row in try driver.query(connection, """
            SELECT table_name::text AS table_name, column_name::text AS column_name, data_type::text AS data_type,
                   is_nullable::text AS is_nullable, column_default::text AS column_default, is_identity::text AS is_identity,
                   collation_name::text AS collation_name
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'
            ORDER BY table_name, ordinal_position
            """) {
            postgres[try row.text("table_name"), default: []].append(row)
        }
        return Schemas(sqlite: snapshot.tables, postgres: postgres, driver: driver, connection: connection)
    }

    @Test func everyTableAndColumnOfSQLiteIsInPostgreSQLTypedAlike() throws {
        let schemas = try Self.schemas()
        #expect(schemas.sqlite.count >= 20)
        // And the change feed's tables, which only PostgreSQL has (`postgresOnlyTables`).
        #expect(Set(schemas.postgres.keys) == Set(schemas.sqlite.map(\.name)).union(PostgresSchema.postgresOnlyTables))
        for table in schemas.sqlite {
            let columns = try #require(schemas.postgres[table.name], "PostgreSQL has no table \(table.name)")
            let named = try columns.filter { try $0.text("column_name") != "rowid" }
            #expect(try named.map { try $0.text("column_name") } == table.columns.map(\.name), "the columns of \(table.name)")
            for (column, row) in zip(table.columns, named) {
                let place = "\(table.name).\(column.name)"
                let kind = try #require(column.kind, "\(place) is \(column.declaredType) in SQLite")
                #expect(try row.text("data_type") == kind.postgresType, "\(place)")
                // PostgreSQL makes a primary key's columns NOT NULL; SQLite only says so for
                // those declared NOT NULL (a quirk of its rowid tables).
                let notNull = column.notNull || column.primaryKeyPosition > 0
                #expect(try row.text("is_nullable") == (notNull ? "NO" : "YES"), "\(place)")
                #expect(try row.optionalText("column_default") == column.defaultValue, "\(place)")
                if kind == .text {
                    #expect(try row.optionalText("collation_name") == "C", "\(place): SQLite compares text byte by byte")
                }
                let identity = try row.text("is_identity") == "YES"
                #expect(identity == (column.primaryKeyPosition == 1 && kind == .integer && table.hasRowid
                                     && table.columns.filter { $0.primaryKeyPosition > 0 }.count == 1
                                     && table.name != "changes" && table.name != "web_push_vapid"),
                        "\(place): an INTEGER PRIMARY KEY that takes SQLite's next rowid is an identity")
            }
        }
    }

    @Test func theTablesWhoseRowidTheCodeReadsHaveOneInPostgreSQL() throws {
        let schemas = try Self.schemas()
        for (table, columns) in schemas.postgres {
            let rowid = try columns.first { try $0.text("column_name") == "rowid" }
            #expect((rowid != nil) == Self.rowidTables.contains(table), "\(table)")
            guard let rowid else { continue }
            #expect(try rowid.text("data_type") == "bigint" && rowid.text("is_identity") == "YES", "\(table).rowid")
            #expect(try columns.first?.text("column_name") == "rowid", "\(table).rowid comes first")
        }
        let unique = try schemas.driver.query(schemas.connection, """
            SELECT conrelid::regclass::text AS t FROM pg_constraint
            WHERE contype = 'u' AND conkey = ARRAY[(SELECT attnum FROM pg_attribute WHERE attrelid = conrelid AND attname = 'rowid')]
            """)
        #expect(Set(try unique.map { try $0.text("t") }) == Self.rowidTables)
    }

    /// A tripwire for the list above: each line of the domain's SQL that says `rowid` names only
    /// tables of the list (or none: a comment). A new use of another table's rowid fails here
    /// until that table has its column in PostgreSQL (a new migration, in both dialects).
    @Test func everyUseOfRowidInTheDomainIsOfATableOfTheList() throws {
        let tables = Set(try Self.schemas().sqlite.map(\.name))
        var uses = 0
        for file in sourceFiles(under: packageRoot + "/Sources/Relaydeck") where !file.contains("/Store/Schema") {
            let lines = String(decoding: readFile(file), as: UTF8.self).split(separator: "\n")
            for line in lines where line.contains("rowid") {
                uses += 1
                let words = Set(line.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
                let named = words.intersection(tables).subtracting(Self.rowidTables)
                #expect(named.isEmpty, "\(file): \(line) reads the rowid of \(named.sorted()), which PostgreSQL has no column for")
            }
        }
        #expect(uses >= 20)
    }

    @Test func everyIndexAndTriggerOfSQLiteIsInPostgreSQL() throws {
        let directory = TemporaryDirectory()
        let database = try sqliteStore(in: directory)
        let statement = try database.prepare("""
            SELECT type, name FROM sqlite_schema WHERE type IN ('index', 'trigger') AND name NOT LIKE 'sqlite_autoindex_%' ORDER BY name
            """)
        var indexes: Set<String> = []
        var triggers: Set<String> = []
        while try statement.step() {
            if statement.string(0) == "index" { indexes.insert(statement.string(1) ?? "") } else { triggers.insert(statement.string(1) ?? "") }
        }
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.migrate(connection, PostgresSchema.migrations).get()
        // Besides SQLite's: the indexes of primary keys and UNIQUE columns (SQLite's
        // sqlite_autoindex_*), each named after its constraint.
        let postgresIndexes = Set(try driver.query(connection, """
            SELECT indexname::text AS name FROM pg_indexes WHERE schemaname = current_schema()
            AND tablename <> 'schema_migrations' AND indexname NOT IN (SELECT conname FROM pg_constraint)
            """).map { try $0.text("name") })
        // And the indexes of the tables only PostgreSQL has (`rate_cells`' and `challenges`' by time).
        #expect(postgresIndexes == indexes.union(["rate_cells_by_time", "challenges_by_expiry"]))
        let postgresTriggers = Set(try driver.query(connection, "SELECT tgname::text AS name FROM pg_trigger WHERE NOT tgisinternal")
            .map { try $0.text("name") })
        #expect(postgresTriggers == triggers)
        #expect(triggers.count == 12)
    }

    @Test func theChecksRefuseWhatSQLitesRefuse() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.migrate(connection).get()
        let refused = [
            "INSERT INTO changes (id, seq) VALUES (2, 0)",
            "INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at, scopes) VALUES ('k', 'nobody', 'l', '\\x01', 'p', 'l4', 1, 63)",
            "INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, created_at, updated_at, created_seq, changed_seq) VALUES ('t', 'a', 'k', 't', '', 'started', 'low', 0, 'agent', 1, 1, 1, 1)",
            "INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, created_at, updated_at, created_seq, changed_seq) VALUES ('t', 'a', 'k', 't', '', 'todo', 'low', 2, 'agent', 1, 1, 1, 1)",
            "INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, progress, source, created_at, updated_at, created_seq, changed_seq) VALUES ('t', 'a', 'k', 't', '', 'todo', 'low', 0, 101, 'agent', 1, 1, 1, 1)",
            "INSERT INTO web_push_vapid (id, private_key, created_at) VALUES (1, '\\x0102', 1)",
            "INSERT INTO oauth_clients (id, kind, name, redirect_uris, auth_method, secret_hash, created_at, last_used_at) VALUES ('c', 'registered', 'n', 'u', 'none', '\\x01', 1, 1)",
            "INSERT INTO oauth_grants (id, account_id, key_id, client_id, client_name, scopes, resource, created_at) VALUES ('g', 'a', 'k', 'c', 'n', 64, 'r', 1)",
        ]
        let directory = TemporaryDirectory()
        let sqlite = try sqliteStore(in: directory)
        for sql in refused {
            let result = try driver.run(connection, [PostgresQuery(sql)])
            #expect(result.firstError?.isConstraintViolation == true, "\(sql)")
            // The same row in SQLite (its blob literals written its own way).
            let sqliteSQL = sql.replacingEvery("'\\x01'", with: "X'01'").replacingEvery("'\\x0102'", with: "X'0102'")
            #expect(throws: SQLiteError.self, "\(sql)") { try sqlite.execute(sqliteSQL) }
        }
    }
}

/// The `.swift` files under `directory`, recursively.
func sourceFiles(under directory: String) -> [String] {
    guard let folder = opendir(directory) else { return [] }
    defer { closedir(folder) }
    var files: [String] = []
    while let entry = readdir(folder) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
        if name == "." || name == ".." { continue }
        let path = directory + "/" + name
        if name.hasSuffix(".swift") {
            files.append(path)
        } else if entry.pointee.d_type == UInt8(DT_DIR) {
            files += sourceFiles(under: path)
        }
    }
    return files.sorted()
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation here).
    func replacingEvery(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
