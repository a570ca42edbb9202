import SQLite

/// A SQLite store opened read-only and held at one moment: the read transaction begun at
/// `init` stays open until `close`, so every table is read as it was then, whatever another
/// process commits meanwhile (in WAL mode a reader never waits for a writer, nor it for us).
///
/// Owned by one thread; not Sendable.
public final class SQLiteSnapshot {
    public let path: String
    /// `PRAGMA user_version`: the schema version of the migrations the file has had.
    public let version: Int
    /// Every table but SQLite's own, in an order where a table comes after those its foreign
    /// keys name (the copy inserts in that order).
    public let tables: [SQLiteTable]
    /// `sqlite_sequence`: the largest number each AUTOINCREMENT table has handed out, even
    /// for rows deleted since, which must never be handed out again.
    public let sequences: [String: Int64]
    private let database: Database

    public init(path: String) throws(SQLiteError) {
        var options = Database.Options()
        options.readOnly = true
        let database = try Database(path: path, options: options)
        try database.begin(.deferred)
        // The first read takes the snapshot; the user_version read after it is the one of
        // that same moment.
        let names = try Self.column(database, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid").map { row -> String in
            guard case .text(let bytes) = row else { return "" }
            return String(decoding: bytes, as: UTF8.self)
        }
        version = try database.userVersion
        var tables: [SQLiteTable] = []
        for name in names where !name.hasPrefix("sqlite_") {
            tables.append(try Self.describe(database, name))
        }
        self.tables = Self.inDependencyOrder(tables)
        var sequences: [String: Int64] = [:]
        if names.contains("sqlite_sequence") {
            let statement = try database.prepare("SELECT name, seq FROM sqlite_sequence")
            while try statement.step() {
                if let name = statement.string(0) { sequences[name] = statement.int64(1) }
            }
        }
        self.sequences = sequences
        self.path = path
        self.database = database
    }

    /// Ends the read transaction and closes the file.
    public func close() {
        database.rollBackAll()
        database.close()
    }

    /// The rows of `table`: `rowid` first when `withRowid`, then `columns` in their order.
    public func rows(of table: SQLiteTable, withRowid: Bool) throws(SQLiteError) -> SQLiteRows {
        let names = (withRowid ? ["rowid"] : []) + table.columns.map(\.name)
        let sql = "SELECT \(names.map(Self.quoted).joined(separator: ", ")) FROM \(Self.quoted(table.name))"
        return SQLiteRows(statement: try database.prepare(sql), columnCount: Int32(names.count))
    }

    /// `name` as an SQL identifier (both dialects quote the same way).
    public static func quoted(_ name: String) -> String {
        var text = "\""
        for character in name {
            text += character == "\"" ? "\"\"" : String(character)
        }
        return text + "\""
    }

    // MARK: Reading the schema

    private static func describe(_ database: Database, _ name: String) throws(SQLiteError) -> SQLiteTable {
        var columns: [SQLiteColumn] = []
        let info = try database.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)")
        try info.bind(name, at: 1)
        while try info.step() {
            columns.append(SQLiteColumn(name: info.string(0) ?? "", declaredType: info.string(1) ?? "", notNull: info.bool(2),
                                        defaultValue: info.string(3), primaryKeyPosition: info.int(4)))
        }
        let list = try database.prepare("SELECT wr FROM pragma_table_list(?1) WHERE schema = 'main'")
        try list.bind(name, at: 1)
        let withoutRowid = try list.step() && list.bool(0)
        list.reset()
        var references: [String] = []
        let keys = try database.prepare("SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1)")
        try keys.bind(name, at: 1)
        while try keys.step() {
            if let table = keys.string(0) { references.append(table) }
        }
        return SQLiteTable(name: name, columns: columns, hasRowid: !withoutRowid, references: references)
    }

    private static func column(_ database: Database, _ sql: String) throws(SQLiteError) -> [StoredValue] {
        let statement = try database.prepare(sql)
        var values: [StoredValue] = []
        while try statement.step() { values.append(statement.stored(0)) }
        return values
    }

    /// Creation order, except that a table moves after every table it references (a table
    /// rebuilt by a migration is created again after those that reference it).
    static func inDependencyOrder(_ tables: [SQLiteTable]) -> [SQLiteTable] {
        var ordered: [SQLiteTable] = []
        var placed: Set<String> = []
        var visiting: Set<String> = []
        let byName = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func place(_ table: SQLiteTable) {
            guard !placed.contains(table.name), !visiting.contains(table.name) else { return }
            visiting.insert(table.name)
            for reference in table.references where reference != table.name {
                if let referenced = byName[reference] { place(referenced) }
            }
            visiting.remove(table.name)
            placed.insert(table.name)
            ordered.append(table)
        }
        tables.forEach(place)
        return ordered
    }
}

/// The rows of one table, read one at a time as the file holds them.
public final class SQLiteRows {
    private let statement: Statement
    private let columnCount: Int32

    init(statement: Statement, columnCount: Int32) {
        self.statement = statement
        self.columnCount = columnCount
    }

    /// The next row's values, nil after the last.
    public func next() throws(SQLiteError) -> [StoredValue]? {
        guard try statement.step() else { return nil }
        return (0..<columnCount).map { statement.stored($0) }
    }
}
