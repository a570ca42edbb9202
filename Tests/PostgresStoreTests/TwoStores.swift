import Postgres
import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// A SQLite store and a PostgreSQL database at the same schema version, and statements run
/// through both: the SQL is written once, with `$1`-numbered parameters (SQLite numbers them
/// by first appearance, so each is used first in order).
final class TwoStores {
    let directory = TemporaryDirectory()
    let sqlite: Database
    let driver: StoreTestDriver
    let postgres: PostgresConnection

    init(upTo version: Int = Schema.version) throws {
        sqlite = try sqliteStore(upTo: version, in: directory)
        driver = try StoreTestDriver()
        postgres = try driver.freshDatabase()
        _ = try driver.migrate(postgres, Array(PostgresSchema.migrations.prefix(version))).get()
    }

    /// Runs `sql` in both; each must succeed.
    func run(_ sql: String, _ values: [PostgresValue] = []) throws {
        let statement = try sqlite.prepare(sql)
        try statement.bind(values.map(Self.sqliteValue))
        while try statement.step() {}
        _ = try driver.query(postgres, sql, values)
    }

    /// Brings both to the latest version.
    func migrateToTheEnd() throws {
        _ = try Migrator.migrate(sqlite, Schema.migrations)
        _ = try driver.migrate(postgres).get()
    }

    /// The rows of `sql` in each store, every column as text (NULL as "NULL"), in order.
    func rows(_ sql: String) throws -> (sqlite: [[String]], postgres: [[String]]) {
        let statement = try sqlite.prepare(sql)
        var fromSQLite: [[String]] = []
        while try statement.step() {
            fromSQLite.append((0..<statement.columnCount).map { column in
                switch statement.value(column) {
                case .null: "NULL"
                case .integer(let number): String(number)
                case .real(let number): String(number)
                case .text(let text): text
                case .blob(let bytes): bytes.map { String($0) }.joined(separator: ",")
                }
            })
        }
        let fromPostgres = try driver.query(postgres, sql).map { row in
            try row.columnNames.map { name -> String in
                if try row.isNull(name) { return "NULL" }
                if let number = try? row.int64(name) { return String(number) }
                if let bytes = try? row.bytes(name) { return bytes.map { String($0) }.joined(separator: ",") }
                return try row.text(name)
            }
        }
        return (fromSQLite, fromPostgres)
    }

    static func sqliteValue(_ value: PostgresValue) -> SQLiteValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .double(let number): .real(number)
        case .bool(let flag): .integer(flag ? 1 : 0)
        case .text(let text): .text(text)
        case .bytes(let bytes): .blob(bytes)
        }
    }
}
